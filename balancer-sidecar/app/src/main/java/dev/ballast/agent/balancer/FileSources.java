package dev.ballast.agent.balancer;

import dev.ballast.agent.wire.World;
import dev.ballast.planner.json.Json;
import dev.ballast.planner.json.JsonFields;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * The world and the job spec from files (BALLAST_WORLD_FILE, BALLAST_SPEC_FILE), re-read when they change:
 * runs a balancer without a cluster (load benchmark, local tests). The spec file holds a TrainingJob's spec,
 * or a whole TrainingJob (its "spec" is used).
 */
public final class FileSources {
    private static final Logger LOG = Logger.getLogger(FileSources.class.getName());

    private final Path worldFile;
    private final Path specFile;
    private String lastWorld;
    private String lastSpec;

    public FileSources(Path worldFile, Path specFile) {
        this.worldFile = worldFile;
        this.specFile = specFile;
    }

    /** Reads both files and reports what changed since the last poll. */
    public void poll(Consumer<World> onWorld, Consumer<JobSpec> onSpec) {
        try {
            String spec = Files.readString(specFile);
            if (!spec.equals(lastSpec)) {
                lastSpec = spec;
                Map<String, Object> m = JsonFields.object(Json.parse(spec), specFile.toString());
                if (m.get("spec") instanceof Map<?, ?>) {
                    m = JsonFields.object(m.get("spec"), specFile + ": spec");
                }
                onSpec.accept(JobSpec.fromSpec(m));
            }
            String world = Files.readString(worldFile);
            if (!world.equals(lastWorld)) {
                lastWorld = world;
                onWorld.accept(World.parse(world));
            }
        } catch (IOException | RuntimeException e) {
            LOG.warning("reading " + specFile + " / " + worldFile + ": " + e.getMessage());
        }
    }
}
