package dev.ballast.e2e.scale;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a benchmark reads of the running operator from outside: its Prometheus metrics (the port it logged at start)
 * and its CPU time from /proc.
 */
final class OperatorProbe {
  private static final Pattern PORT = Pattern.compile("Listening on: http://[^:]+:(\\d+)");
  private static final Pattern ADMISSION = Pattern.compile(
      "Admission of (\\S+): (\\d+) workers placed in ([0-9.]+) ms, their pods created in ([0-9.]+) ms");
  private final HttpClient http = HttpClient.newHttpClient();
  private final URI metrics;
  private final long pid;

  /** Waits up to a minute for the operator to log its HTTP port (Quarkus does once the operator has started). */
  OperatorProbe(Path operatorLog, long pid) throws IOException, InterruptedException {
    int port = -1;
    for (int i = 0; i < 240 && port < 0; i++) {
      Matcher m = PORT.matcher(Files.readString(operatorLog));
      while (m.find()) port = Integer.parseInt(m.group(1)); // the last start's
      if (port < 0) Thread.sleep(250);
    }
    if (port < 0) throw new IllegalStateException("the operator logged no HTTP port in " + operatorLog);
    this.metrics = URI.create("http://127.0.0.1:" + port + "/q/metrics");
    this.pid = pid;
  }

  /** Every sample of /q/metrics, by its series ("name{labels}"). */
  Map<String, Double> metrics() throws IOException, InterruptedException {
    String body = http.send(HttpRequest.newBuilder(metrics).build(), HttpResponse.BodyHandlers.ofString()).body();
    Map<String, Double> out = new TreeMap<>();
    for (String line : body.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) continue;
      int space = line.lastIndexOf(' ');
      try {
        out.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
      } catch (NumberFormatException ignored) {
        // NaN-like values are not what a benchmark sums
      }
    }
    return out;
  }

  /** The sum of every series whose name is {@code name} and whose labels contain each of {@code labels}. */
  static double sum(Map<String, Double> metrics, String name, String... labels) {
    double total = 0;
    for (var e : metrics.entrySet()) {
      String series = e.getKey();
      String seriesName = series.contains("{") ? series.substring(0, series.indexOf('{')) : series;
      if (!seriesName.equals(name)) continue;
      boolean all = true;
      for (String l : labels) all &= series.contains(l);
      if (all) total += e.getValue();
    }
    return total;
  }

  /** The operator's user + system CPU seconds so far (/proc/PID/stat, in clock ticks of 1/100 s). */
  double cpuSeconds() throws IOException {
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0; // utime, stime (fields 14, 15)
  }

  /** The per-job admissions the operator logged: job → {placement ms, pod creation ms}. */
  static Map<String, double[]> admissions(Path operatorLog) throws IOException {
    Map<String, double[]> out = new TreeMap<>();
    Matcher m = ADMISSION.matcher(Files.readString(operatorLog));
    while (m.find()) out.put(m.group(1), new double[] {Double.parseDouble(m.group(3)), Double.parseDouble(m.group(4))});
    return out;
  }
}
