package dev.ballast.tools.bench;

import java.io.PrintStream;
import java.util.Locale;
import java.util.function.Supplier;

/** Progress lines on stderr for long runs (null stream: silent). */
final class Progress {
    private final PrintStream err;

    Progress(PrintStream err) {
        this.err = err;
    }

    <T> T run(String what, Supplier<T> work) {
        long t0 = System.nanoTime();
        if (err != null) {
            err.print("[bench] " + what + " ...");
            err.flush();
        }
        T r = work.get();
        if (err != null) {
            err.printf(Locale.ROOT, " %.1fs%n", (System.nanoTime() - t0) / 1e9);
        }
        return r;
    }

    void note(String line) {
        if (err != null) {
            err.println("[bench] " + line);
        }
    }
}
