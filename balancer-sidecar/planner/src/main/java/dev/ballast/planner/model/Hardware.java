package dev.ballast.planner.model;

/**
 * Link bandwidths (GB/s per GPU per direction) and the GPU's expert-GEMM rate.
 * Defaults and their sources are in docs/cost-model.md.
 */
public record Hardware(double nvlinkGBps, double nicGBps, double crossRackGBps, double peakTflops, double gemmEfficiency) {
    /** NVLink 4 (H100/H200 SXM): 450 GB/s per direction. */
    public static final double DEFAULT_NVLINK_GBPS = 450;
    /** One 400 Gb/s NDR InfiniBand / ConnectX-7 NIC per GPU: 50 GB/s. */
    public static final double DEFAULT_NIC_GBPS = 50;
    /** Assumed 2:1 oversubscribed spine between racks. */
    public static final double DEFAULT_CROSS_RACK_GBPS = 25;
    /** H100 SXM dense bf16 peak, TFLOP/s. */
    public static final double DEFAULT_PEAK_TFLOPS = 989;
    /** Assumed sustained fraction of peak for grouped expert GEMMs. */
    public static final double DEFAULT_GEMM_EFFICIENCY = 0.6;

    public static final Hardware DEFAULT = new Hardware(DEFAULT_NVLINK_GBPS, DEFAULT_NIC_GBPS,
            DEFAULT_CROSS_RACK_GBPS, DEFAULT_PEAK_TFLOPS, DEFAULT_GEMM_EFFICIENCY);

    public Hardware {
        requirePositive("nvlinkGBps", nvlinkGBps);
        requirePositive("nicGBps", nicGBps);
        requirePositive("crossRackGBps", crossRackGBps);
        requirePositive("peakTflops", peakTflops);
        if (!(gemmEfficiency > 0 && gemmEfficiency <= 1)) {
            throw new IllegalArgumentException("gemmEfficiency must be in (0, 1], got " + gemmEfficiency);
        }
    }

    private static void requirePositive(String name, double v) {
        if (!(v > 0) || Double.isInfinite(v)) {
            throw new IllegalArgumentException(name + " must be a positive number, got " + v);
        }
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
