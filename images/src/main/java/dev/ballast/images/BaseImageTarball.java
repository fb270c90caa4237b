package dev.ballast.images;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;

/**
 * Writes a base image as a docker-format tarball (what Jib reads as a {@code tar://} base) from staged
 * root filesystem directories, one layer each. Unlike Jib's own layers, these keep symbolic links,
 * setuid/sticky bits and per-path owners, as an unpacked Debian package has them.
 *
 * <p>Reproducible: entries sorted by path, one fixed modification time, owner root unless
 * {@link Layer#owners} says otherwise, no user or group names; gzip headers carry no time.
 */
public final class BaseImageTarball {
  /** Jib's own default file time, so base and application layers agree. */
  static final long MTIME_SECONDS = 1;

  /** A directory whose contents land under {@code prefix} ("" = the root); owners maps paths to uid:gid and mode. */
  public record Layer(Path dir, String prefix, Map<String, Owner> owners) {
    public Layer(Path dir, String prefix) {
      this(dir, prefix, Map.of());
    }
  }

  /** Owner and permission bits of one path in a layer (e.g. the non-root user's home). */
  public record Owner(int uid, int gid, int mode) {}

  private BaseImageTarball() {}

  /** Writes {@code out}; returns the digests of the layers (uncompressed, as the config's diff_ids). */
  public static List<String> write(Path out, List<Layer> layers) throws IOException {
    List<byte[]> gzipped = new ArrayList<>();
    List<String> diffIds = new ArrayList<>();
    for (Layer layer : layers) {
      MessageDigest diff = sha256();
      ByteArrayOutputStream gz = new ByteArrayOutputStream();
      try (GZIPOutputStream zip = new GZIPOutputStream(gz);
           TarArchiveOutputStream tar = tarStream(new DigestOutputStream(zip, diff))) {
        writeLayer(tar, layer);
      }
      gzipped.add(gz.toByteArray());
      diffIds.add("sha256:" + HexFormat.of().formatHex(diff.digest()));
    }
    StringBuilder config = new StringBuilder("{\"architecture\":\"amd64\",\"os\":\"linux\",\"config\":{},")
        .append("\"rootfs\":{\"type\":\"layers\",\"diff_ids\":[");
    StringBuilder manifest = new StringBuilder("[{\"Config\":\"config.json\",\"RepoTags\":[],\"Layers\":[");
    for (int i = 0; i < layers.size(); i++) {
      String sep = i == 0 ? "" : ",";
      config.append(sep).append('"').append(diffIds.get(i)).append('"');
      manifest.append(sep).append("\"layer-").append(i).append(".tar.gz\"");
    }
    config.append("]}}");
    manifest.append("]}]");
    try (TarArchiveOutputStream tar = tarStream(Files.newOutputStream(out))) {
      addBytes(tar, "config.json", config.toString().getBytes(StandardCharsets.UTF_8));
      for (int i = 0; i < layers.size(); i++) {
        addBytes(tar, "layer-" + i + ".tar.gz", gzipped.get(i));
      }
      addBytes(tar, "manifest.json", manifest.toString().getBytes(StandardCharsets.UTF_8));
    }
    return diffIds;
  }

  private static void writeLayer(TarArchiveOutputStream tar, Layer layer) throws IOException {
    TreeSet<String> names = new TreeSet<>();
    // The prefix's own directories first (e.g. "opt/" for a runtime under opt/java).
    String prefix = layer.prefix().isEmpty() ? "" : layer.prefix().replaceAll("^/+|/+$", "") + "/";
    for (int i = prefix.indexOf('/'); i >= 0; i = prefix.indexOf('/', i + 1)) {
      names.add(prefix.substring(0, i + 1));
    }
    try (Stream<Path> walk = Files.walk(layer.dir())) {
      walk.filter(p -> !p.equals(layer.dir())).forEach(p -> {
        String rel = layer.dir().relativize(p).toString();
        boolean dir = Files.isDirectory(p, java.nio.file.LinkOption.NOFOLLOW_LINKS);
        names.add(prefix + rel + (dir ? "/" : ""));
      });
    }
    for (String name : names) {
      String rel = name.substring(Math.min(prefix.length(), name.length()));
      Path source = name.length() <= prefix.length() ? null : layer.dir().resolve(rel);
      writeEntry(tar, name, source, layer.owners().get(name.replaceAll("/$", "")));
    }
  }

  private static void writeEntry(TarArchiveOutputStream tar, String name, Path source, Owner owner) throws IOException {
    TarArchiveEntry entry;
    boolean regularFile = false;
    if (source == null) {
      entry = new TarArchiveEntry(name);
      entry.setMode(TarArchiveEntry.DEFAULT_DIR_MODE);
    } else if (Files.isSymbolicLink(source)) {
      entry = new TarArchiveEntry(name, TarConstants.LF_SYMLINK);
      entry.setLinkName(Files.readSymbolicLink(source).toString());
      entry.setMode(0120777);
    } else {
      int mode = (Integer) Files.getAttribute(source, "unix:mode", java.nio.file.LinkOption.NOFOLLOW_LINKS);
      entry = new TarArchiveEntry(name);
      entry.setMode((name.endsWith("/") ? 040000 : 0100000) | (mode & 07777));
      regularFile = !name.endsWith("/");
      if (regularFile) {
        entry.setSize(Files.size(source));
      }
    }
    if (owner != null) {
      entry.setIds(owner.uid(), owner.gid());
      entry.setMode((entry.getMode() & ~07777) | owner.mode());
    } else {
      entry.setIds(0, 0);
    }
    entry.setUserName("");
    entry.setGroupName("");
    entry.setModTime(MTIME_SECONDS * 1000);
    tar.putArchiveEntry(entry);
    if (regularFile) {
      try (InputStream in = Files.newInputStream(source)) {
        in.transferTo(tar);
      }
    }
    tar.closeArchiveEntry();
  }

  private static void addBytes(TarArchiveOutputStream tar, String name, byte[] bytes) throws IOException {
    TarArchiveEntry entry = new TarArchiveEntry(name);
    entry.setSize(bytes.length);
    entry.setMode(0100644);
    entry.setModTime(MTIME_SECONDS * 1000);
    tar.putArchiveEntry(entry);
    tar.write(bytes);
    tar.closeArchiveEntry();
  }

  private static TarArchiveOutputStream tarStream(OutputStream out) {
    TarArchiveOutputStream tar = new TarArchiveOutputStream(out);
    tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
    tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
    tar.setAddPaxHeadersForNonAsciiNames(true);
    return tar;
  }

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
