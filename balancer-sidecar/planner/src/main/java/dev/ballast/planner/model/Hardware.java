package dev.ballast.planner.model;

import dev.ballast.contracts.world.HardwareSpec;

/**
 * Link bandwidths (GB/s per GPU per direction) and the GPU's expert-GEMM rate.
 * Defaults and their sources are in docs/cost-model.md.
 */
public record Hardware(double nvlinkGBps, double nicGBps, double crossRackGBps, double peakTflops, double gemmEfficiency) {
    /** The CRD's defaults (spec.balancer.hardware), an H100 SXM node: sources in docs/cost-model.md. */
    public static final Hardware DEFAULT = of(HardwareSpec.DEFAULT);

    /** The rates a job declared (spec.balancer.hardware, as frozen in its world). */
    public static Hardware of(HardwareSpec h) {
        return new Hardware(h.nvlinkGBps(), h.nicGBps(), h.crossRackGBps(), h.peakTflops(), h.gemmEfficiency());
    }

    /** The contract's checks: every rate positive and finite, the GEMM efficiency in (0, 1]. */
    public Hardware {
        new HardwareSpec(nvlinkGBps, nicGBps, crossRackGBps, peakTflops, gemmEfficiency);
    }

    /** Sustained expert-GEMM rate in FLOP/s. */
    public double flopsPerSecond() {
        return peakTflops * gemmEfficiency * 1e12;
    }

    /** Bytes per second of a link class (SAME_GPU is treated as free and returns infinity). */
    public double bytesPerSecond(LinkClass c) {
        return switch (c) {
            case SAME_GPU -> Double.POSITIVE_INFINITY;
            case NVLINK -> nvlinkGBps * 1e9;
            case NETWORK -> nicGBps * 1e9;
            case CROSS_RACK -> crossRackGBps * 1e9;
        };
    }
}
