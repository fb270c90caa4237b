package dev.ballast.planner.model;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * GPUs, each in a node (NVLink domain) inside a rack, plus link speeds. GPU index = global GPU rank.
 * Build it from the operator's world with {@link #of(List, Hardware)} or from a compact spec with {@link #parse(String)}.
 */
public final class Topology {
    private final int[] nodeOfGpu;
    private final int[] rackOfGpu;
    private final Hardware hardware;
    private final String spec;

    private Topology(int[] nodeOfGpu, int[] rackOfGpu, Hardware hardware, String spec) {
        this.nodeOfGpu = nodeOfGpu;
        this.rackOfGpu = rackOfGpu;
        this.hardware = hardware;
        this.spec = spec;
    }

    /**
     * The plain factory for the operator's world: {@code gpus.get(i)} is where GPU rank i sits.
     * A node must lie in exactly one rack.
     */
    public static Topology of(List<GpuPlace> gpus, Hardware hardware) {
        if (gpus.isEmpty()) {
            throw new IllegalArgumentException("a topology needs at least one GPU");
        }
        int n = gpus.size();
        int[] node = new int[n];
        int[] rack = new int[n];
        Map<Integer, Integer> rackOfNode = new LinkedHashMap<>();
        for (int g = 0; g < n; g++) {
            GpuPlace p = gpus.get(g);
            Integer known = rackOfNode.putIfAbsent(p.node(), p.rack());
            if (known != null && known != p.rack()) {
                throw new IllegalArgumentException("GPU " + g + ": node " + p.node() + " is in rack " + known
                        + " and rack " + p.rack());
            }
            node[g] = p.node();
            rack[g] = p.rack();
        }
        return new Topology(node, rack, hardware, describe(node, rack, hardware));
    }

    /**
     * Parses {@code nodes=8,gpusPerNode=8,racks=2,nvlinkGBps=450,nicGBps=50,crossRackGBps=25,peakTflops=989,gemmEfficiency=0.6}.
     * Only nodes and gpusPerNode are required; nodes are spread over racks in contiguous blocks.
     */
    public static Topology parse(String spec) {
        Map<String, String> kv = new LinkedHashMap<>();
        for (String part : spec.split(",")) {
            String p = part.trim();
            if (p.isEmpty()) {
                continue;
            }
            int eq = p.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("topology: '" + p + "' is not key=value");
            }
            String key = p.substring(0, eq).trim();
            if (kv.put(key, p.substring(eq + 1).trim()) != null) {
                throw new IllegalArgumentException("topology: key '" + key + "' given twice");
            }
        }
        int nodes = intKey(kv, "nodes", -1);
        int perNode = intKey(kv, "gpusPerNode", -1);
        int racks = intKey(kv, "racks", 1);
        if (racks > nodes) {
            throw new IllegalArgumentException("topology: racks=" + racks + " exceeds nodes=" + nodes);
        }
        Hardware hw = new Hardware(
                doubleKey(kv, "nvlinkGBps", Hardware.DEFAULT.nvlinkGBps()),
                doubleKey(kv, "nicGBps", Hardware.DEFAULT.nicGBps()),
                doubleKey(kv, "crossRackGBps", Hardware.DEFAULT.crossRackGBps()),
                doubleKey(kv, "peakTflops", Hardware.DEFAULT.peakTflops()),
                doubleKey(kv, "gemmEfficiency", Hardware.DEFAULT.gemmEfficiency()));
        if (!kv.isEmpty()) {
            throw new IllegalArgumentException("topology: unknown key '" + kv.keySet().iterator().next()
                    + "' (known: nodes, gpusPerNode, racks, nvlinkGBps, nicGBps, crossRackGBps, peakTflops, gemmEfficiency)");
        }
        List<GpuPlace> gpus = new ArrayList<>(nodes * perNode);
        for (int n = 0; n < nodes; n++) {
            int rack = (int) ((long) n * racks / nodes);
            for (int i = 0; i < perNode; i++) {
                gpus.add(new GpuPlace(n, rack));
            }
        }
        return of(gpus, hw);
    }

    private static int intKey(Map<String, String> kv, String key, int dflt) {
        String v = kv.remove(key);
        if (v == null) {
            if (dflt < 0) {
                throw new IllegalArgumentException("topology: missing key '" + key + "'");
            }
            return dflt;
        }
        try {
            int x = Integer.parseInt(v);
            if (x <= 0) {
                throw new NumberFormatException();
            }
            return x;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("topology: '" + key + "' must be a positive integer, got '" + v + "'");
        }
    }

    private static double doubleKey(Map<String, String> kv, String key, double dflt) {
        String v = kv.remove(key);
        if (v == null) {
            return dflt;
        }
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("topology: '" + key + "' must be a number, got '" + v + "'");
        }
    }

    private static String describe(int[] node, int[] rack, Hardware hw) {
        int nodes = (int) java.util.Arrays.stream(node).distinct().count();
        int racks = (int) java.util.Arrays.stream(rack).distinct().count();
        return String.format(Locale.ROOT, "%dx%d(%d racks)", nodes, node.length / Math.max(1, nodes), racks);
    }

    public int gpus() {
        return nodeOfGpu.length;
    }

    public int node(int gpu) {
        return nodeOfGpu[gpu];
    }

    public int rack(int gpu) {
        return rackOfGpu[gpu];
    }

    public Hardware hardware() {
        return hardware;
    }

    /** Short human label such as {@code 8x8(2 racks)}. */
    public String label() {
        return spec;
    }

    public LinkClass link(int a, int b) {
        if (a == b) {
            return LinkClass.SAME_GPU;
        }
        if (nodeOfGpu[a] == nodeOfGpu[b]) {
            return LinkClass.NVLINK;
        }
        if (rackOfGpu[a] == rackOfGpu[b]) {
            return LinkClass.NETWORK;
        }
        return LinkClass.CROSS_RACK;
    }

    /** Number of distinct nodes. */
    public int nodeCount() {
        return (int) java.util.Arrays.stream(nodeOfGpu).distinct().count();
    }
}
