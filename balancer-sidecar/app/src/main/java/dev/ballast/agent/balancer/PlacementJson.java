package dev.ballast.agent.balancer;

import dev.ballast.contracts.json.JsonWriter;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Plan;
import dev.ballast.planner.model.StaticLayout;

/**
 * The job page's "placement": where each expert's copies live under the plan every rank runs (docs/dashboard.md,
 * "The job page's data"). Per layer, per GPU of the layer's pipeline stage, only the copies beyond the GPU's static
 * home block ({@code extra}) and the home experts it does not hold ({@code missing}, FSSDP only); the page adds the home
 * blocks from {@code homeFirst}. Masters moved off their static home (EPLB) are listed per layer. Pure.
 */
final class PlacementJson {
    private PlacementJson() {
    }

    /**
     * Writes field "placement". {@code plan}: the plan in use, or null for the static layout ({@code version} "") or
     * for a plan every rank runs that this balancer does not hold ({@code version} names it; it restarted since).
     * {@code par} null: no planning setup yet (an empty object).
     */
    static void write(JsonWriter w, Parallelism par, int layers, int experts, Plan plan, String version) {
        w.name("placement").beginObject();
        if (par == null) {
            w.endObject();
            return;
        }
        w.field("plan", version).field("held", plan != null || version.isEmpty()).field("ep", par.ep())
                .field("dp", par.dp()).field("pp", par.pp());
        int[] homeFirst = new int[par.ep() + 1];
        for (int g = 0; g <= par.ep(); g++) {
            homeFirst[g] = StaticLayout.firstExpert(g, par.ep(), experts);
        }
        w.array("homeFirst", homeFirst);
        if (plan == null && !version.isEmpty()) {
            w.endObject();
            return;
        }
        w.name("layers").beginArray();
        for (int l = 0; l < layers; l++) {
            w.beginObject().field("stage", par.stageOf(l, layers));
            if (plan != null) {
                layer(w, par, experts, plan, l);
            }
            w.endObject();
        }
        w.endArray().endObject();
    }

    private static void layer(JsonWriter w, Parallelism par, int experts, Plan plan, int l) {
        boolean missing = false;
        boolean masters = false;
        w.name("extra").beginArray();
        for (int c = 0; c < par.dp(); c++) {
            LayerPlacement p = plan.placement(l, c);
            masters |= p.hasMovedMasters();
            for (int g = 0; g < par.ep(); g++) {
                int first = StaticLayout.firstExpert(g, par.ep(), experts);
                int next = StaticLayout.firstExpert(g + 1, par.ep(), experts);
                w.beginArray();
                for (int i = 0; i < p.expertCount(g); i++) {
                    int e = p.expertAt(g, i);
                    if (e < first || e >= next) {
                        w.value(e);
                    }
                }
                w.endArray();
                missing |= p.expertCount(g) - p.nonHomeCopies(g) < next - first;
            }
        }
        w.endArray();
        if (missing) {
            w.name("missing").beginArray();
            for (int c = 0; c < par.dp(); c++) {
                LayerPlacement p = plan.placement(l, c);
                for (int g = 0; g < par.ep(); g++) {
                    w.beginArray();
                    for (int e = StaticLayout.firstExpert(g, par.ep(), experts);
                         e < StaticLayout.firstExpert(g + 1, par.ep(), experts); e++) {
                        if (!p.holds(g, e)) {
                            w.value(e);
                        }
                    }
                    w.endArray();
                }
            }
            w.endArray();
        }
        if (masters) { // per data-parallel copy, each expert's master as an EP rank
            w.name("masters").beginArray();
            for (int c = 0; c < par.dp(); c++) {
                LayerPlacement p = plan.placement(l, c);
                for (int e = 0; e < experts; e++) {
                    w.value(p.master(e));
                }
            }
            w.endArray();
        }
    }
}
