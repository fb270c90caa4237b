package dev.ballast.images;

import com.google.cloud.tools.jib.api.Containerizer;
import com.google.cloud.tools.jib.api.ImageReference;
import com.google.cloud.tools.jib.api.Jib;
import com.google.cloud.tools.jib.api.JibContainer;
import com.google.cloud.tools.jib.api.JibContainerBuilder;
import com.google.cloud.tools.jib.api.LogEvent;
import com.google.cloud.tools.jib.api.RegistryImage;
import com.google.cloud.tools.jib.api.TarImage;
import com.google.cloud.tools.jib.api.buildplan.AbsoluteUnixPath;
import com.google.cloud.tools.jib.api.buildplan.FileEntriesLayer;
import com.google.cloud.tools.jib.api.buildplan.ImageFormat;
import com.google.cloud.tools.jib.api.buildplan.Port;
import com.google.cloud.tools.jib.frontend.CredentialRetrieverFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Builds the operator, agent, trainer and reference-trainer images, and with {@code --cublas-root} the
 * reference-trainer-cuda image, with Jib Core (images/build.sh stages the inputs).
 * Each goes to an OCI tarball ({@code --out DIR}) or to a registry ({@code --push REGISTRY}).
 */
public final class BuildImages {
  /** The images' non-root user (the "nonroot" of the bases' /etc/passwd). */
  static final String USER = "65532:65532";
  static final String JAVA_HOME = "/opt/java";
  static final String APP_DIR = "/deployments";
  /** Where Debian's python3 looks for packages (site-packages of the system interpreter). */
  static final String PYTHON_PACKAGES = "/usr/lib/python3/dist-packages";
  /** The reference trainer's main class: it joins the pod's world from the operator's env (docs/trainer.md). */
  static final String TRAINER_MAIN = "dev.ballast.trainer.train.DistributedTrainMain";
  /** The licence texts: the reference trainer's default training data (its --data). */
  static final String CORPUS = "usr/share/common-licenses";
  static final String PACKAGE_LIST = "usr/share/ballast/debian-packages";
  /** The wheels (name version sha256) a CUDA image's cuBLAS layer comes from (images/pypi.lock). */
  static final String PYPI_LIST = "usr/share/ballast/pypi-packages";
  /** Where Debian's glibc looks for libraries without an ld.so.cache or LD_LIBRARY_PATH. */
  static final String LIB_DIR = "usr/lib/x86_64-linux-gnu";
  /** What JCuda's libJCublas2 links (libcublas.so.12 links libcublasLt.so.12), by their sonames. */
  static final List<String> CUBLAS_LIBS = List.of("libcublas.so.12", "libcublasLt.so.12");

  private final Options options;
  private final ImageNames names;

  private BuildImages(Options options) throws IOException {
    this.options = options;
    ImageNames fromFile = ImageNames.load(options.path("names"));
    this.names = options.has("push") ? fromFile.inRegistry(options.get("push")) : fromFile;
  }

  public static void main(String[] args) throws Exception {
    try {
      new BuildImages(Options.parse(args)).run();
    } catch (IllegalArgumentException e) {
      System.err.println("BuildImages: " + e.getMessage());
      System.exit(2);
    }
  }

  private void run() throws Exception {
    Path work = options.path("work");
    Files.createDirectories(work);
    String javaPackages = Files.readString(options.path("java-root").resolve(PACKAGE_LIST));
    String dataPackages = Files.readString(options.path("data-root").resolve(PACKAGE_LIST));
    String debianPackages = javaPackages + Files.readString(options.path("python-root").resolve(PACKAGE_LIST))
        + dataPackages;
    String debianDigest = sha256(debianPackages);

    Path javaBase = work.resolve("java-base.tar");
    Path pythonBase = work.resolve("python-base.tar");
    Map<String, BaseImageTarball.Owner> home = Map.of("home/nonroot", new BaseImageTarball.Owner(65532, 65532, 0700));
    BaseImageTarball.write(javaBase, List.of(
        new BaseImageTarball.Layer(options.path("java-root"), "", home),
        new BaseImageTarball.Layer(options.path("jre"), JAVA_HOME)));
    BaseImageTarball.write(pythonBase, List.of(new BaseImageTarball.Layer(options.path("python-root"), "", home)));

    List<String> digests = new ArrayList<>();
    digests.add(build("operator", quarkusApp(javaBase, options.path("operator-app"), List.of(8080)),
        labels("Ballast operator", "Kubernetes operator for elastic Mixture-of-Experts training jobs", debianDigest)));
    digests.add(build("agent", quarkusApp(javaBase, options.path("agent-app"), List.of(8470, 8471, 8472, 8473)),
        labels("Ballast agent", "Ballast data-path agent; the first argument is its role: sidecar or balancer",
            debianDigest)));
    digests.add(build("trainer", trainer(pythonBase, options.path("python-client")),
        labels("Ballast trainer side", "Python 3.11 and the Ballast Python client (ballast_client); the "
            + "TrainingJob's trainer container adds its training program", debianDigest)));
    Path trainerPackages = work.resolve("reference-trainer-debian-packages");
    Files.writeString(trainerPackages, javaPackages + dataPackages);
    digests.add(build("reference-trainer", referenceTrainer(javaBase, options.path("reference-trainer-app"),
            options.path("data-root"), trainerPackages),
        labels("Ballast reference trainer", "Ballast's reference MoE trainer (Java backend; the "
            + "reference-trainer-cuda image adds cuBLAS for GPU nodes); runs a worker pod's ranks from the operator's "
            + "env", debianDigest)));
    if (options.has("cublas-root")) {
      Path cublasRoot = options.path("cublas-root");
      Map<String, String> labels = labels("Ballast reference trainer for GPU nodes", "Ballast's reference MoE trainer "
          + "with CUDA 12's cuBLAS (JCuda's cuBLAS SGEMM where the node provides the driver's libcuda.so.1, else the "
          + "Java backend); runs a worker pod's ranks from the operator's env", debianDigest);
      // What the cuBLAS layer is made of: the sha256 of its list of wheels (name version sha256).
      String wheels = Files.readString(cublasRoot.resolve(PYPI_LIST));
      labels.put("dev.ballast.image.pypi-packages", "sha256:" + sha256(wheels));
      digests.add(build("reference-trainer-cuda", referenceTrainer(javaBase, options.path("reference-trainer-app"),
              options.path("data-root"), trainerPackages).addFileEntriesLayer(cublas(cublasRoot)), labels));
    }
    if (options.has("out")) {
      Files.writeString(options.path("out").resolve("digests"), String.join("\n", digests) + "\n");
    }
  }

  /** A Quarkus fast-jar: dependencies in one layer (they change least), the application in another. */
  private static JibContainerBuilder quarkusApp(Path base, Path app, List<Integer> ports) throws IOException {
    if (!Files.isRegularFile(app.resolve("quarkus-run.jar"))) {
      throw new IllegalArgumentException(app + "/quarkus-run.jar is missing: package the application first");
    }
    AbsoluteUnixPath dir = AbsoluteUnixPath.get(APP_DIR);
    FileEntriesLayer.Builder libs = FileEntriesLayer.builder().setName("dependencies");
    addTree(libs, app.resolve("lib"), dir.resolve("lib"));
    FileEntriesLayer.Builder application = FileEntriesLayer.builder().setName("application");
    application.addEntry(app.resolve("quarkus-run.jar"), dir.resolve("quarkus-run.jar"));
    addTree(application, app.resolve("quarkus"), dir.resolve("quarkus"));
    addTree(application, app.resolve("app"), dir.resolve("app"));
    return Jib.from(TarImage.at(base))
        .addFileEntriesLayer(libs.build())
        .addFileEntriesLayer(application.build())
        .setWorkingDirectory(dir)
        // The container's memory limit caps the heap; the operator's pods pass their role as the first argument.
        .setEntrypoint(JAVA_HOME + "/bin/java", "-XX:MaxRAMPercentage=75", "-jar", APP_DIR + "/quarkus-run.jar")
        .setEnvironment(Map.of("JAVA_HOME", JAVA_HOME, "LANG", "C.UTF-8", "HOME", "/home/nonroot"))
        .setExposedPorts(ports.stream().map(Port::tcp).collect(Collectors.toSet()));
  }

  /** Python 3.11 with the Ballast Python client importable as {@code ballast_client}; the command is the trainer's. */
  private static JibContainerBuilder trainer(Path base, Path client) throws IOException {
    FileEntriesLayer.Builder layer = FileEntriesLayer.builder().setName("ballast-client");
    addTree(layer, client, AbsoluteUnixPath.get(PYTHON_PACKAGES).resolve("ballast_client"));
    return Jib.from(TarImage.at(base))
        .addFileEntriesLayer(layer.build())
        .setWorkingDirectory(AbsoluteUnixPath.get("/home/nonroot"))
        .setEntrypoint("/usr/bin/python3")
        // A read-only root filesystem: no .pyc files next to the sources.
        .setEnvironment(Map.of("LANG", "C.UTF-8", "HOME", "/home/nonroot", "PYTHONDONTWRITEBYTECODE", "1"));
  }

  /**
   * The reference trainer (trainer-image/reference, docs/trainer.md) on the Java base: its dependencies in one layer,
   * its jar in another, the licence texts it trains on by default in a third; the entrypoint runs DistributedTrainMain
   * with the Vector API module, and the container's args are its flags.
   */
  private static JibContainerBuilder referenceTrainer(Path base, Path target, Path dataRoot, Path packageList)
      throws IOException {
    Path lib = target.resolve("lib");
    Path jar;
    try (Stream<Path> jars = Files.list(target)) {
      jar = jars.filter(p -> p.getFileName().toString().matches("ballast-reference-trainer-[0-9.]+(-SNAPSHOT)?\\.jar"))
          .findFirst()
          .orElseThrow(() -> new IllegalArgumentException(target + " holds no ballast-reference-trainer jar: package "
              + "trainer-image/reference first"));
    }
    if (!Files.isDirectory(lib)) {
      throw new IllegalArgumentException(lib + " is missing: package trainer-image/reference first");
    }
    AbsoluteUnixPath dir = AbsoluteUnixPath.get(APP_DIR);
    FileEntriesLayer.Builder libs = FileEntriesLayer.builder().setName("dependencies");
    addTree(libs, lib, dir.resolve("lib"));
    List<String> classpath = new ArrayList<>(List.of(APP_DIR + "/reference-trainer.jar"));
    try (Stream<Path> jars = Files.list(lib)) {
      jars.map(p -> APP_DIR + "/lib/" + p.getFileName()).sorted().forEach(classpath::add);
    }
    FileEntriesLayer application = FileEntriesLayer.builder().setName("application")
        .addEntry(jar, dir.resolve("reference-trainer.jar")).build();
    FileEntriesLayer.Builder data = FileEntriesLayer.builder().setName("data");
    addTree(data, dataRoot.resolve(CORPUS), AbsoluteUnixPath.get("/" + CORPUS));
    data.addEntry(packageList, AbsoluteUnixPath.get("/" + PACKAGE_LIST)); // the Java base's list and base-files
    return Jib.from(TarImage.at(base))
        .addFileEntriesLayer(libs.build())
        .addFileEntriesLayer(application)
        .addFileEntriesLayer(data.build())
        .setWorkingDirectory(AbsoluteUnixPath.get("/home/nonroot"))
        .setEntrypoint(JAVA_HOME + "/bin/java", "-XX:MaxRAMPercentage=75", "--add-modules", "jdk.incubator.vector",
            "-cp", String.join(":", classpath), TRAINER_MAIN)
        .setEnvironment(Map.of("JAVA_HOME", JAVA_HOME, "LANG", "C.UTF-8", "HOME", "/home/nonroot"));
  }

  /**
   * CUDA 12's cuBLAS as images/build.sh stages it from NVIDIA's wheel: libcublas.so.12 and libcublasLt.so.12 in the
   * directory the image's glibc searches by default, NVIDIA's licence and the wheel's list, in one layer.
   */
  private static FileEntriesLayer cublas(Path root) throws IOException {
    for (String lib : CUBLAS_LIBS) {
      if (!Files.isRegularFile(root.resolve(LIB_DIR).resolve(lib))) {
        throw new IllegalArgumentException(root + "/" + LIB_DIR + "/" + lib + " is missing: stage cuBLAS with "
            + "images/build.sh --cuda");
      }
    }
    FileEntriesLayer.Builder layer = FileEntriesLayer.builder().setName("cublas");
    addTree(layer, root, AbsoluteUnixPath.get("/"));
    return layer.build();
  }

  private Map<String, String> labels(String title, String description, String debianDigest) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("org.opencontainers.image.title", title);
    labels.put("org.opencontainers.image.description", description);
    labels.put("org.opencontainers.image.vendor", "Ballast");
    labels.put("org.opencontainers.image.version", names.tag());
    labels.put("org.opencontainers.image.revision", options.get("revision"));
    labels.put("org.opencontainers.image.base.name", "scratch + Debian bookworm packages (images/debian.lock)");
    // What the bases are made of: the sha256 of the list of Debian packages (name version sha256) in them.
    labels.put("dev.ballast.image.debian-packages", "sha256:" + debianDigest);
    return labels;
  }

  private String build(String image, JibContainerBuilder builder, Map<String, String> labels)
      throws Exception {
    // No label names the registry (the tarball's index does): a pushed image is the tarball's image.
    builder.setLabels(labels)
        .setUser(USER)
        .setFormat(ImageFormat.OCI)
        .setCreationTime(Instant.EPOCH);
    Containerizer containerizer;
    if (options.has("push")) {
      // Credentials as docker and Jib's plugins find them: ~/.docker/config.json and credential helpers.
      ImageReference reference = ImageReference.parse(names.reference(image));
      CredentialRetrieverFactory credentials = CredentialRetrieverFactory.forImage(reference, e -> { });
      containerizer = Containerizer.to(RegistryImage.named(reference)
              .addCredentialRetriever(credentials.dockerConfig())
              .addCredentialRetriever(credentials.wellKnownCredentialHelpers()))
          .setAllowInsecureRegistries(options.has("insecure"));
    } else {
      Path out = options.path("out");
      Files.createDirectories(out);
      containerizer = Containerizer.to(TarImage.at(out.resolve(image + ".tar")).named(names.reference(image)))
          .setOfflineMode(true);
    }
    Path cache = options.path("cache");
    containerizer.setBaseImageLayersCache(cache.resolve("base")).setApplicationLayersCache(cache.resolve("application"))
        .setToolName("ballast-images")
        .addEventHandler(LogEvent.class, e -> {
          if (e.getLevel() == LogEvent.Level.ERROR || e.getLevel() == LogEvent.Level.WARN) {
            System.err.println("jib: " + e.getMessage());
          }
        });
    JibContainer container = builder.containerize(containerizer);
    String line = image + " " + names.reference(image) + " " + container.getDigest();
    System.out.println((options.has("push") ? "pushed " : "built  ") + line);
    return line;
  }

  /** Adds every regular file under {@code dir} (sorted; Jib adds the parent directories). */
  private static void addTree(FileEntriesLayer.Builder layer, Path dir, AbsoluteUnixPath target) throws IOException {
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path file : walk.filter(Files::isRegularFile)
          .filter(p -> !p.toString().contains("__pycache__"))
          .sorted().toList()) {
        String rel = dir.relativize(file).toString();
        layer.addEntry(file, target.resolve(rel));
      }
    }
  }

  private static String sha256(String text) {
    return HexFormat.of().formatHex(BaseImageTarball.sha256().digest(text.getBytes(StandardCharsets.UTF_8)));
  }

  /** {@code --name value} and {@code --flag} arguments. */
  record Options(Map<String, String> values) {
    private static final Set<String> FLAGS = Set.of("insecure");

    static Options parse(String[] args) {
      Map<String, String> values = new LinkedHashMap<>();
      for (int i = 0; i < args.length; i++) {
        if (!args[i].startsWith("--")) {
          throw new IllegalArgumentException("unexpected argument '" + args[i] + "'");
        }
        String name = args[i].substring(2);
        if (FLAGS.contains(name)) {
          values.put(name, "true");
        } else if (i + 1 < args.length) {
          values.put(name, args[++i]);
        } else {
          throw new IllegalArgumentException("--" + name + " needs a value");
        }
      }
      return new Options(values);
    }

    boolean has(String name) {
      return values.containsKey(name);
    }

    String get(String name) {
      String value = values.get(name);
      if (value == null) {
        throw new IllegalArgumentException("--" + name + " is required");
      }
      return value;
    }

    Path path(String name) {
      return Path.of(get(name));
    }
  }
}
