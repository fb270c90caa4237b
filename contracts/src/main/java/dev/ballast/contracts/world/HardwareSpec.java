package dev.ballast.contracts.world;

/**
 * spec.balancer.hardware as frozen at commit: the rates the balancer's cost model prices a plan with (docs/cost-model.md).
 * Link rates are per GPU and direction; compute is the GPU's dense peak times the sustained fraction expert GEMMs reach.
 * The defaults are an H100 SXM node (NVLink 4, one 400 Gb/s NIC per GPU, a 2:1 oversubscribed spine between racks).
 *
 * @param nvlinkGBps     within an NVLink domain (a node), GB/s
 * @param nicGBps        between nodes of one rack, GB/s
 * @param crossRackGBps  between racks, GB/s
 * @param peakTflops     dense peak of the parameters' precision, TFLOP/s
 * @param gemmEfficiency the fraction of the peak expert GEMMs sustain, in (0, 1]
 */
public record HardwareSpec(double nvlinkGBps, double nicGBps, double crossRackGBps, double peakTflops,
                           double gemmEfficiency) {
    public static final HardwareSpec DEFAULT = new HardwareSpec(450, 50, 25, 989, 0.6);

    public HardwareSpec {
        positive("nvlinkGBps", nvlinkGBps);
        positive("nicGBps", nicGBps);
        positive("crossRackGBps", crossRackGBps);
        positive("peakTflops", peakTflops);
        if (!(gemmEfficiency > 0 && gemmEfficiency <= 1)) {
            throw new IllegalArgumentException("gemmEfficiency must be in (0, 1], got " + gemmEfficiency);
        }
    }

    private static void positive(String field, double v) {
        if (!(v > 0) || Double.isInfinite(v)) {
            throw new IllegalArgumentException(field + " must be a positive number, got " + v);
        }
    }
}
