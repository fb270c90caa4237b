package dev.ballast.trainer.backend;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BackendsTest {

    /** JCuda's message when libJCublas2 cannot link (abridged from a run without cuBLAS): the loader's line counts. */
    @Test
    void aLinkFailureNamesTheMissingLibrary() {
        String message = """
                Error while loading native library "JCublas2-12.6.0-linux-x86_64"
                Operating system name: Linux
                ---(start of nested stack traces)---
                Stack trace from the attempt to load the library as a file:
                java.lang.UnsatisfiedLinkError: no JCublas2-12.6.0-linux-x86_64 in java.library.path: /usr/lib
                \tat java.base/java.lang.ClassLoader.loadLibrary(ClassLoader.java:2434)
                Stack trace from the attempt to load the library as a resource:
                java.lang.UnsatisfiedLinkError: /tmp/libJCublas2-12.6.0-linux-x86_64.so: libcublas.so.12: cannot \
                open shared object file: No such file or directory
                \tat java.base/jdk.internal.loader.NativeLibraries.load(Native Method)
                ---(end of nested stack traces)---
                """;
        assertThat(Backends.firstCause(message)).isEqualTo("/tmp/libJCublas2-12.6.0-linux-x86_64.so: libcublas.so.12: "
                + "cannot open shared object file: No such file or directory");
    }

    @Test
    void otherFailuresKeepTheirFirstLine() {
        assertThat(Backends.firstCause("cudaErrorInsufficientDriver")).isEqualTo("cudaErrorInsufficientDriver");
        assertThat(Backends.firstCause("first\nsecond")).isEqualTo("first");
        assertThat(Backends.firstCause(null)).isEqualTo("no message");
    }
}
