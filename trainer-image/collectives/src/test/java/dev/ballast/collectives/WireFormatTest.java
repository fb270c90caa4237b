package dev.ballast.collectives;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The byte layouts docs/collectives.md documents. */
class WireFormatTest {

    @Test
    void envelopeHeaderIsTheDocumentedLittleEndianLayout() {
        Envelope e = new Envelope(3, 17, Collective.ALL_REDUCE, 1, Dtype.FLOAT, ReduceOp.MAX, 2, 5, 100,
            Dtype.encode(new float[] {1.0f}));
        byte[] bytes = e.encode();
        assertThat(HexFormat.of().formatHex(bytes)).isEqualTo(
            "424c4331" + "0300000000000000" + "1100000000000000" + "02" + "01" + "01" + "02"
                + "02000000" + "05000000" + "6400000000000000" + "04000000" + "0000803f");
        Envelope back = Envelope.decode(bytes);
        assertThat(back.payload()).containsExactly(e.payload());
        assertThat(back).usingRecursiveComparison().ignoringFields("payload").isEqualTo(e);
    }

    @Test
    void theMarshallersStreamIsTheEncodingReadOrDrained() throws Exception {
        Envelope e = new Envelope(2, 5, Collective.ALL_TO_ALL_V, 0, Dtype.FLOAT, null, 1, 0, -1,
            Dtype.encode(new float[] {1f, 2f, 3f}));
        EnvelopeMarshaller m = new EnvelopeMarshaller();
        assertThat(m.stream(e).readAllBytes()).isEqualTo(e.encode());
        java.io.ByteArrayOutputStream drained = new java.io.ByteArrayOutputStream();
        ((io.grpc.Drainable) m.stream(e)).drainTo(drained);
        assertThat(drained.toByteArray()).isEqualTo(e.encode());
        Envelope back = m.parse(new java.io.ByteArrayInputStream(e.encode()));
        assertThat(Dtype.floats(back.payload())).containsExactly(1f, 2f, 3f);
        assertThat(back.seq()).isEqualTo(5);
    }

    @Test
    void noReduceOpIs255AndRoundTrips() {
        Envelope e = new Envelope(1, 0, Collective.BARRIER, 0, Dtype.NONE, null, 0, 1, -1, new byte[0]);
        byte[] bytes = e.encode();
        assertThat(bytes[23] & 0xFF).isEqualTo(255);
        assertThat(Envelope.decode(bytes).reduceOp()).isNull();
    }

    @Test
    void malformedMessagesAreRefusedNamingTheProblem() {
        assertThatThrownBy(() -> Envelope.decode(new byte[10])).hasMessageContaining("shorter than its 44-byte header");
        byte[] bytes = new Envelope(1, 0, Collective.BARRIER, 0, Dtype.NONE, null, 0, 1, -1, new byte[0]).encode();
        byte[] truncated = java.util.Arrays.copyOf(bytes, bytes.length);
        truncated[40] = 9; // says 9 payload bytes, carries none
        assertThatThrownBy(() -> Envelope.decode(truncated)).hasMessageContaining("says 9 payload bytes");
        bytes[20] = 42;
        assertThatThrownBy(() -> Envelope.decode(bytes)).hasMessageContaining("unknown collective code 42");
        bytes[0] = 'X';
        assertThatThrownBy(() -> Envelope.decode(bytes)).hasMessageContaining("not a Ballast collective message");
    }

    @Test
    void registrationAndPeerTableRoundTrip() {
        Registration r = new Registration(9, 2, 1, 4, "", 41234, "job-g9-1");
        assertThat(Registration.decode(r.encode())).isEqualTo(r);
        PeerTable t = new PeerTable(9, List.of(new Peer(0, "10.0.0.5", 29500, 4, "job-g9-0"),
            new Peer(1, "fd00::7", 41234, 4, "job-g9-1")));
        assertThat(PeerTable.decode(t.encode())).isEqualTo(t);
        assertThat(t.peers().get(1).endpoint()).isEqualTo("[fd00::7]:41234");
        assertThat(t.describe(1)).isEqualTo("node rank 1 (job-g9-1 at [fd00::7]:41234, ranks 4-7)");
        assertThatThrownBy(() -> PeerTable.decode(r.encode())).hasMessageContaining("not a rendezvous peer table");
    }
}
