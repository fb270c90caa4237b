package dev.ballast.planner.model;

/**
 * The static layout (docs/quota-rule.md): expert e lives on EP rank floor(e × EP / E); blocks differ by at most one expert.
 */
public final class StaticLayout {
    private StaticLayout() {
    }

    public static int home(int expert, int ep, int experts) {
        long x = (long) expert * ep;
        // 32-bit division where the product fits: planners call this in their hot loops.
        return x <= Integer.MAX_VALUE ? (int) x / experts : (int) (x / experts);
    }

    /** First expert homed on EP rank g: the smallest e with floor(e·EP/E) >= g, i.e. ceil(g·E/EP). */
    public static int firstExpert(int g, int ep, int experts) {
        return (int) (((long) g * experts + ep - 1) / ep);
    }

    public static int homeCount(int g, int ep, int experts) {
        return firstExpert(g + 1, ep, experts) - firstExpert(g, ep, experts);
    }

    /** ceil(E / EP): the most home experts any rank has. */
    public static int maxHomeCount(int ep, int experts) {
        return (experts + ep - 1) / ep;
    }

    public static int[] homes(int ep, int experts) {
        int[] h = new int[experts];
        for (int e = 0; e < experts; e++) {
            h[e] = home(e, ep, experts);
        }
        return h;
    }
}
