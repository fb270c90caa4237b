package dev.ballast.images;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BaseImageTarballTest {
  @TempDir
  Path tmp;

  /** A root as dpkg-deb -x leaves it: a library, a relative and an absolute symlink, a sticky /tmp. */
  private Path root(String name) throws IOException {
    Path root = tmp.resolve(name);
    Files.createDirectories(root.resolve("lib/x86_64-linux-gnu"));
    Files.writeString(root.resolve("lib/x86_64-linux-gnu/libz.so.1.2.13"), "not really zlib");
    Files.createSymbolicLink(root.resolve("lib/x86_64-linux-gnu/libz.so.1"), Path.of("libz.so.1.2.13"));
    Files.createDirectories(root.resolve("lib64"));
    Files.createSymbolicLink(root.resolve("lib64/ld-linux-x86-64.so.2"), Path.of("/lib/x86_64-linux-gnu/ld.so"));
    Files.createDirectories(root.resolve("tmp"));
    Files.setAttribute(root.resolve("tmp"), "unix:mode", 01777);
    Files.createDirectories(root.resolve("home/nonroot"));
    try (var walk = Files.walk(root)) { // different times must not matter
      walk.forEach(p -> set(p, FileTime.fromMillis(System.nanoTime() % 1_000_000_000L)));
    }
    return root;
  }

  private static void set(Path p, FileTime t) {
    try {
      if (!Files.isSymbolicLink(p)) Files.setLastModifiedTime(p, t);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void sameFilesGiveTheSameBytesAndKeepLinksModesAndOwners() throws IOException {
    var home = Map.of("home/nonroot", new BaseImageTarball.Owner(65532, 65532, 0700));
    Path a = tmp.resolve("a.tar");
    Path b = tmp.resolve("b.tar");
    List<String> idsA = BaseImageTarball.write(a, List.of(new BaseImageTarball.Layer(root("one"), "", home),
        new BaseImageTarball.Layer(root("jre"), "/opt/java")));
    List<String> idsB = BaseImageTarball.write(b, List.of(new BaseImageTarball.Layer(root("two"), "", home),
        new BaseImageTarball.Layer(root("jre2"), "/opt/java")));
    assertThat(Files.readAllBytes(a)).isEqualTo(Files.readAllBytes(b));
    assertThat(idsA).isEqualTo(idsB).hasSize(2);

    Map<String, byte[]> outer = read(Files.newInputStream(a));
    assertThat(outer.keySet()).containsExactly("config.json", "layer-0.tar.gz", "layer-1.tar.gz", "manifest.json");
    assertThat(new String(outer.get("config.json"), StandardCharsets.UTF_8)).contains(idsA.get(0), idsA.get(1));

    Map<String, TarArchiveEntry> base = entries(outer.get("layer-0.tar.gz"));
    assertThat(base.keySet()).containsExactly("home/", "home/nonroot/", "lib/", "lib/x86_64-linux-gnu/",
        "lib/x86_64-linux-gnu/libz.so.1", "lib/x86_64-linux-gnu/libz.so.1.2.13", "lib64/",
        "lib64/ld-linux-x86-64.so.2", "tmp/");
    assertThat(base.get("lib/x86_64-linux-gnu/libz.so.1").isSymbolicLink()).isTrue();
    assertThat(base.get("lib/x86_64-linux-gnu/libz.so.1").getLinkName()).isEqualTo("libz.so.1.2.13");
    assertThat(base.get("lib64/ld-linux-x86-64.so.2").getLinkName()).isEqualTo("/lib/x86_64-linux-gnu/ld.so");
    assertThat(base.get("tmp/").getMode() & 07777).isEqualTo(01777);
    assertThat(base.get("home/nonroot/").getLongUserId()).isEqualTo(65532);
    assertThat(base.get("home/nonroot/").getMode() & 07777).isEqualTo(0700);
    assertThat(base.get("lib/").getLongUserId()).isZero();
    assertThat(base.values()).allSatisfy(e -> assertThat(e.getModTime().getTime()).isEqualTo(1000));
    assertThat(entries(outer.get("layer-1.tar.gz")).keySet()).startsWith("opt/", "opt/java/", "opt/java/home/");
  }

  private static Map<String, TarArchiveEntry> entries(byte[] gzipped) throws IOException {
    Map<String, TarArchiveEntry> entries = new LinkedHashMap<>();
    try (var tar = new TarArchiveInputStream(new GZIPInputStream(new java.io.ByteArrayInputStream(gzipped)))) {
      for (TarArchiveEntry e = tar.getNextEntry(); e != null; e = tar.getNextEntry()) {
        entries.put(e.getName(), e);
      }
    }
    return entries;
  }

  private static Map<String, byte[]> read(InputStream in) throws IOException {
    Map<String, byte[]> files = new LinkedHashMap<>();
    try (var tar = new TarArchiveInputStream(in)) {
      for (TarArchiveEntry e = tar.getNextEntry(); e != null; e = tar.getNextEntry()) {
        files.put(e.getName(), tar.readAllBytes());
      }
    }
    return files;
  }
}
