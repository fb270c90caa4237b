package dev.ballast.agent.balancer;

import dev.ballast.contracts.json.Json;
import dev.ballast.contracts.json.JsonFields;
import dev.ballast.contracts.status.BalancerStatus;
import dev.ballast.contracts.status.BalancerStatusJson;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** status.balancer in a JSON file (BALLAST_STATUS_FILE): for running a balancer outside a cluster (bench, tests). */
public final class FileStatusStore implements StatusStore {
    private final Path file;

    public FileStatusStore(Path file) {
        this.file = file;
    }

    @Override
    public long loadPlanSequence() {
        if (!Files.exists(file)) {
            return 0;
        }
        try {
            return BalancerStatusJson.planSequence(JsonFields.object(Json.parse(Files.readString(file)), file.toString()));
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + file, e);
        }
    }

    @Override
    public void write(BalancerStatus s) {
        String json = BalancerStatusJson.encode(s);
        try {
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            Files.writeString(tmp, json + "\n");
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("writing " + file, e);
        }
    }
}
