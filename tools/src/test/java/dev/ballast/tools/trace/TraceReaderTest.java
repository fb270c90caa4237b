package dev.ballast.tools.trace;

import dev.ballast.tools.synth.Scenarios;
import dev.ballast.tools.synth.SyntheticSpec;
import dev.ballast.tools.synth.SyntheticTrace;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TraceReaderTest {
    static final String HEADER = "{\"format\":\"ballast-trace/v1\",\"model\":\"m\",\"layers\":1,\"experts\":3,\"sources\":2,\"topK\":1}";

    static MemoryTrace read(String text) throws IOException {
        return TraceReader.read("t", new StringReader(text));
    }

    @Test
    void readsAWellFormedTrace() throws IOException {
        MemoryTrace t = read(HEADER + "\n"
                + "{\"step\":0,\"layer\":0,\"source\":0,\"counts\":[1,2,3]}\n"
                + "{\"step\":0,\"layer\":0,\"source\":1,\"counts\":[4,5,6]}\n"
                + "{\"step\":5,\"layer\":0,\"source\":1,\"counts\":[0,0,1]}\n"
                + "{\"step\":5,\"layer\":0,\"source\":0,\"counts\":[1,0,0]}\n\n");
        assertThat(t.steps()).isEqualTo(2);
        assertThat(t.stepNumber(1)).isEqualTo(5);
        assertThat(t.counts(0)[0][1]).containsExactly(4, 5, 6);
        assertThat(t.counts(1)[0][0]).containsExactly(1, 0, 0);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "empty file||line 1: empty trace",
        "wrong format|{\"format\":\"x\"}|line 1: \"format\" must be \"ballast-trace/v1\"",
        "header only|HEADER|line 1: trace has a header but no records",
        "not json|HEADER\\n{oops|line 2: not valid JSON",
        "not an object|HEADER\\n[1]|line 2: each line must be a JSON object",
        "missing step|HEADER\\n{\"layer\":0,\"source\":0,\"counts\":[1,2,3]}|line 2: missing \"step\"",
        "layer out of range|HEADER\\n{\"step\":0,\"layer\":1,\"source\":0,\"counts\":[1,2,3]}|line 2: \"layer\" = 1 is outside [0, 0]",
        "source out of range|HEADER\\n{\"step\":0,\"layer\":0,\"source\":2,\"counts\":[1,2,3]}|line 2: \"source\" = 2 is outside [0, 1]",
        "short counts|HEADER\\n{\"step\":0,\"layer\":0,\"source\":0,\"counts\":[1,2]}|line 2: \"counts\" has 2 entries, header says experts=3",
        "negative count|HEADER\\n{\"step\":0,\"layer\":0,\"source\":0,\"counts\":[1,-2,3]}|line 2: counts[1] = -2 is outside",
        "fractional count|HEADER\\n{\"step\":0,\"layer\":0,\"source\":0,\"counts\":[1,2.5,3]}|line 2: counts[1] must be an integer",
        "counts not array|HEADER\\n{\"step\":0,\"layer\":0,\"source\":0,\"counts\":7}|line 2: \"counts\" must be an array",
        "duplicate record|HEADER\\n{\"step\":0,\"layer\":0,\"source\":0,\"counts\":[1,2,3]}\\n{\"step\":0,\"layer\":0,\"source\":0,\"counts\":[1,2,3]}|line 3: duplicate record for step 0 layer 0 source 0",
        "missing source|HEADER\\n{\"step\":0,\"layer\":0,\"source\":0,\"counts\":[1,2,3]}|line 2: step 0 (starting here) has no record for layer 0 source 1",
        "steps decrease|HEADER\\n{\"step\":3,\"layer\":0,\"source\":0,\"counts\":[1,2,3]}\\n{\"step\":3,\"layer\":0,\"source\":1,\"counts\":[1,2,3]}\\n{\"step\":2,\"layer\":0,\"source\":0,\"counts\":[1,2,3]}|line 4: step 2 after step 3",
        "blank line inside|HEADER\\n\\n{\"step\":0,\"layer\":0,\"source\":0,\"counts\":[1,2,3]}|line 2: blank line inside the trace",
        "topK too large|{\"format\":\"ballast-trace/v1\",\"model\":\"m\",\"layers\":1,\"experts\":3,\"sources\":2,\"topK\":4}|line 1: \"topK\" = 4 is outside [1, 3]"})
    void rejectsMalformedTraces(String name, String text, String message) {
        String body = text == null ? "" : text.replace("HEADER", HEADER).replace("\\n", "\n");
        assertThatThrownBy(() -> read(body)).isInstanceOf(TraceFormatException.class).hasMessageContaining(message);
    }

    @Test
    void writerAndReaderRoundTrip() throws IOException {
        SyntheticSpec spec = Scenarios.byName("bursty");
        SyntheticTrace t = new SyntheticTrace(new SyntheticSpec("small", 2, 8, 2, 3, 4, 100, 1.0, 0.1, 0.5, 4, 0.3, 0.1, 1, 0));
        StringWriter w = new StringWriter();
        TraceWriter.write(t, w);
        MemoryTrace back = read(w.toString());
        assertThat(back.header().experts()).isEqualTo(8);
        for (int i = 0; i < t.steps(); i++) {
            assertThat(back.counts(i)).isDeepEqualTo(t.counts(i));
        }
        assertThat(spec.name()).isEqualTo("bursty");
    }

    @Test
    void readsTheVendoredOlmoeTrace() throws IOException {
        // the repository's traces/ folder, from this module's directory (where Maven runs its tests)
        Path p = Path.of("../traces/olmoe-1b-7b-domains.jsonl");
        assertThat(p).as("the vendored trace").isRegularFile();
        MemoryTrace t = TraceReader.read(p);
        assertThat(t.header().experts()).isEqualTo(64);
        assertThat(t.header().sources()).isEqualTo(5);
        long sum = 0;
        for (int c : t.counts(0)[0][0]) {
            sum += c;
        }
        assertThat(sum).isEqualTo(208_896L * 8);
    }
}
