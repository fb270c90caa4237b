package dev.ballast.contracts.env;

import dev.ballast.contracts.json.JsonFields;
import dev.ballast.contracts.vectors.VectorFiles;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/** contracts/vectors/environment.json holds exactly ProcessEnv's names, ports and addresses (the Python client is checked against it). */
class ProcessEnvVectorsTest {
    static final Map<String, Object> VECTORS = VectorFiles.load("environment.json");

    static Map<String, Object> constants(Class<?> type) throws IllegalAccessException {
        Map<String, Object> out = new TreeMap<>();
        for (Field f : ProcessEnv.class.getDeclaredFields()) {
            if (Modifier.isPublic(f.getModifiers()) && Modifier.isStatic(f.getModifiers()) && f.getType() == type) {
                out.put(f.getName(), type == int.class ? (Object) (long) f.getInt(null) : f.get(null));
            }
        }
        return out;
    }

    @Test
    void namesAndPortsAreTheVectorsBothWays() throws IllegalAccessException {
        Map<String, Object> namesAndAddresses = new TreeMap<>(JsonFields.object(VECTORS.get("names"), "names"));
        namesAndAddresses.putAll(JsonFields.object(VECTORS.get("addresses"), "addresses"));
        assertThat(constants(String.class)).isEqualTo(namesAndAddresses);
        assertThat(constants(int.class)).isEqualTo(new TreeMap<>(JsonFields.object(VECTORS.get("ports"), "ports")));
        assertThat(ProcessEnv.sidecarUrl(ProcessEnv.SIDECAR_PORT)).isEqualTo(JsonFields.requireString(VECTORS, "sidecarUrl"));
    }
}
