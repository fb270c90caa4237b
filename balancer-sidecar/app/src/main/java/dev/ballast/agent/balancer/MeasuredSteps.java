package dev.ballast.agent.balancer;

import dev.ballast.contracts.status.BalancerStatus;

/**
 * What the current world's recent complete steps measured, for status.balancer.measured: the imbalance the metrics
 * score once a second (busiest GPU's tokens over the mean, of the reported counts placed by the static layout and by
 * the plan the step ran), and the slowest rank's reported step and compute time under the static layout and under
 * the balancer's plans, each a mean over the last {@link StepWindow#CAPACITY} steps (or scores) of its kind.
 * <p>
 * Times are attributed by step number, because a step's reports can arrive before the adoption report that says
 * which plan it ran: the static layout's steps are those before the step at which every rank adopted the
 * generation's first plan, the plans' those from it on. Later plans share the plans' window: re-planning every few
 * steps must not leave it empty. Not thread-safe.
 */
final class MeasuredSteps {
    private final StepWindow imbalanceBefore = new StepWindow();
    private final StepWindow imbalanceAfter = new StepWindow();
    private final StepWindow stepBefore = new StepWindow();
    private final StepWindow computeBefore = new StepWindow();
    private final StepWindow stepAfter = new StepWindow();
    private final StepWindow computeAfter = new StepWindow();
    /** The step from which every rank runs the generation's plans; -1 while the static layout runs. */
    private long plansSince = -1;

    /** A new world generation: nothing of it was measured yet, and it starts on its static layout. */
    void newWorld() {
        for (StepWindow w : new StepWindow[] {imbalanceBefore, imbalanceAfter, stepBefore, computeBefore, stepAfter,
                computeAfter}) {
            w.clear();
        }
        plansSince = -1;
    }

    /**
     * The imbalance of complete step {@code step}'s counts placed by the static layout ({@code before}) and by the
     * plan that step ran ({@code after}; NaN when it ran the static layout or the plan is not known).
     */
    void scored(long step, double before, double after) {
        imbalanceBefore.add(step, before);
        if (!Double.isNaN(after)) {
            imbalanceAfter.add(step, after);
        }
    }

    /** The slowest rank's step and compute time in complete step {@code step}; NaN: not every rank reported it. */
    void timed(long step, double stepSeconds, double computeSeconds) {
        if (plansSince >= 0 && step < plansSince) {
            return; // a late step of the static layout, whose window is closed
        }
        if (!Double.isNaN(stepSeconds)) {
            (plansSince < 0 ? stepBefore : stepAfter).add(step, stepSeconds);
        }
        if (!Double.isNaN(computeSeconds)) {
            (plansSince < 0 ? computeBefore : computeAfter).add(step, computeSeconds);
        }
    }

    /**
     * Every rank now runs the generation's first plan (or a later one), the last of them since step {@code since}:
     * the static layout's window closes, and the steps from {@code since} on that it took already move to the plans'.
     * Later calls change nothing.
     */
    void plansInUse(long since) {
        if (plansSince < 0) {
            stepBefore.moveFrom(since, stepAfter);
            computeBefore.moveFrom(since, computeAfter);
            plansSince = since;
        }
    }

    /** The means as status.balancer.measured (NaN where nothing was measured); null before anything was. */
    BalancerStatus.Measured summary() {
        if (imbalanceBefore.size() == 0 && stepBefore.size() + computeBefore.size() + stepAfter.size()
                + computeAfter.size() == 0) {
            return null;
        }
        return new BalancerStatus.Measured(imbalanceBefore.mean(), imbalanceAfter.mean(), stepBefore.mean(),
                stepAfter.mean(), computeBefore.mean(), computeAfter.mean());
    }
}
