package dev.ballast.tools.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The machine a bench ran on: CPUs, CPU model (from /proc/cpuinfo) and JDK. */
public record Machine(int cpus, String cpuModel, String jdk) {
    public static Machine current() {
        String model = "unknown CPU";
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    model = line.substring(line.indexOf(':') + 1).trim();
                    break;
                }
            }
        } catch (IOException | RuntimeException e) {
            // Not Linux: keep "unknown CPU".
        }
        return new Machine(Runtime.getRuntime().availableProcessors(), model,
                System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
    }

    /** The load averages of /proc/loadavg, "1m / 5m / 15m (1/5/15 min)", or "unknown". */
    public static String loadAverage() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return parts[0] + " / " + parts[1] + " / " + parts[2] + " (1/5/15 min)";
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
