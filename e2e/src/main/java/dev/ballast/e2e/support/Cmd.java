package dev.ballast.e2e.support;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs a command to completion and captures its output: kubectl, helm and the cluster scripts. */
public final class Cmd {
  /** What a finished command said. */
  public record Result(List<String> command, int exitCode, String stdout, String stderr) {
    public Result ok() {
      if (exitCode != 0) {
        throw new IllegalStateException(String.join(" ", command) + " exited with " + exitCode + "\nstdout:\n" + stdout
            + "\nstderr:\n" + stderr);
      }
      return this;
    }
  }

  private Cmd() {}

  /** @param stdin written to the command's standard input, or null for none */
  public static Result run(Path dir, Map<String, String> env, Duration timeout, List<String> command, String stdin) {
    try {
      ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
      pb.environment().putAll(env);
      Process p = pb.start();
      try (var in = p.getOutputStream()) {
        if (stdin != null) in.write(stdin.getBytes(StandardCharsets.UTF_8));
      }
      CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(p.getInputStream()));
      CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException(String.join(" ", command) + " did not finish within " + timeout);
      }
      return new Result(command, p.exitValue(), out.join(), err.join());
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + command.get(0) + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + command, e);
    }
  }

  private static String read(java.io.InputStream in) {
    try (in) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }
}
