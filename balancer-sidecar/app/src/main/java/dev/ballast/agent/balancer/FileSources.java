package dev.ballast.agent.balancer;

import dev.ballast.contracts.world.WorldDocument;
import dev.ballast.contracts.world.WorldDocumentJson;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * The world document from a file (BALLAST_WORLD_FILE), re-read when it changes: runs a balancer without a cluster
 * (load benchmark, local tests). The file holds what the operator's ConfigMap would (docs/contracts.md).
 */
public final class FileSources {
    private static final Logger LOG = Logger.getLogger(FileSources.class.getName());

    private final Path worldFile;
    private String lastWorld;

    public FileSources(Path worldFile) {
        this.worldFile = worldFile;
    }

    /** Reads the file and hands on the document when its text changed since the last poll. */
    public void poll(Consumer<WorldDocument> onWorld) {
        try {
            String world = Files.readString(worldFile);
            if (!world.equals(lastWorld)) {
                lastWorld = world;
                onWorld.accept(WorldDocumentJson.decode(world));
            }
        } catch (IOException | RuntimeException e) {
            LOG.warning("reading " + worldFile + ": " + e.getMessage());
        }
    }
}
