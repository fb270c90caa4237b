package dev.ballast.e2e.kubelet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An image unpacked to a root filesystem (as images/test.sh leaves them: {@code DIR/root/NAME} and
 * {@code DIR/NAME.config.json}), run the way a container runtime would: its entrypoint and env, in its
 * root, as its user, in new mount and PID namespaces ({@code unshare}, then {@code nsenter} for the
 * chroot, working directory, uid and gid), with its own /tmp. The host's network stays: pods' addresses are loopback.
 * Host directories a container must see (the kubeconfig the kubelet writes for it) are bind-mounted
 * at the same path. Needs root.
 */
record UnpackedImage(Path root, List<String> entrypoint, Map<String, String> env, String uid, String gid,
                     String workingDir) {
  private static final String RUN = String.join(" && ",
      "mount -t proc proc \"$0/proc\"",
      "mount --rbind /dev \"$0/dev\"",
      "mount -t tmpfs -o mode=1777 tmpfs \"$0/tmp\"", // the container's own /tmp, as an emptyDir would be
      "for d in ${4//:/ }; do mkdir -p \"$0$d\" && mount --bind \"$d\" \"$0$d\"; done",
      "exec /usr/bin/nsenter --root=\"$0\" --wd=\"$0$1\" -S \"$2\" -G \"$3\" -- \"${@:5}\"");

  static UnpackedImage load(Path dir, String name) throws IOException {
    JsonNode config = new ObjectMapper().readTree(dir.resolve(name + ".config.json").toFile()).path("config");
    Path root = dir.resolve("root").resolve(name).toAbsolutePath();
    if (!Files.isDirectory(root)) {
      throw new IllegalStateException(root + " is missing: run bin/ballast images, then images/test.sh, which unpacks it");
    }
    List<String> entrypoint = new ArrayList<>();
    config.path("Entrypoint").forEach(e -> entrypoint.add(e.asText()));
    Map<String, String> env = new LinkedHashMap<>();
    config.path("Env").forEach(e -> {
      String[] kv = e.asText().split("=", 2);
      env.put(kv[0], kv.length > 1 ? kv[1] : "");
    });
    String[] user = config.path("User").asText("0:0").split(":", 2);
    return new UnpackedImage(root, List.copyOf(entrypoint), Map.copyOf(env), user[0], user.length > 1 ? user[1] : user[0],
        config.path("WorkingDir").asText("/"));
  }

  /** The command that runs the entrypoint with {@code args}, the host directories {@code binds} visible inside. */
  List<String> command(List<String> args, List<Path> binds) throws IOException {
    Files.createDirectories(root.resolve("proc"));
    Files.createDirectories(root.resolve("dev"));
    List<String> cmd = new ArrayList<>(List.of("unshare", "--mount", "--pid", "--fork", "--propagation", "private",
        "--", "/bin/bash", "-c", RUN, root.toString(), workingDir, uid, gid,
        String.join(":", binds.stream().map(p -> p.toAbsolutePath().toString()).toList())));
    cmd.addAll(entrypoint);
    cmd.addAll(args);
    return cmd;
  }
}
