"""The adoption rule as a pure function, and PlanAdopter over several ranks with an in-process MIN all-reduce.

The encoding and the rule's decisions that the Java client shares are checked by test_contract_vectors.py."""
import threading

from ballast_client import adoption
from ballast_client.versions import PlanVersion as V


def reduce(*heads):
    cs = [adoption.contribution(n, o) for n, o in heads]
    return [min(c[0] for c in cs), min(c[1] for c in cs)]


def test_adopts_the_minimum_newest_when_every_rank_holds_it():
    assert adoption.decide(V(2, 0), reduce((V(2, 9), V(2, 5)), (V(2, 7), V(2, 6)))) == V(2, 7)


def test_keeps_the_plan_when_a_rank_dropped_the_candidate_or_has_nothing():
    assert adoption.decide(V(2, 3), reduce((V(2, 7), V(2, 5)), (V(2, 9), V(2, 8)))) is None
    assert adoption.decide(V(2, 0), reduce((V(2, 7), V(2, 5)), (None, V(2, 5)))) is None
    assert adoption.decide(V(2, 0), reduce((V(2, 7), V(2, 5)), (None, None))) is None


def test_never_goes_back_nor_crosses_generations():
    r = reduce((V(2, 7), V(2, 5)), (V(2, 7), V(2, 5)))
    assert adoption.decide(V(2, 7), r) is None
    assert adoption.decide(V(2, 8), r) is None
    assert adoption.decide(V(3, 0), r) is None


class Barrier:
    """MIN all-reduce among threads (what torch.distributed does across processes)."""

    def __init__(self, n):
        self.n, self.acc, self.arrived, self.round, self.result = n, None, 0, 0, None
        self.cv = threading.Condition()

    def __call__(self, values):
        with self.cv:
            self.acc = list(values) if self.acc is None else [min(a, b) for a, b in zip(self.acc, values)]
            my = self.round
            self.arrived += 1
            if self.arrived == self.n:
                self.result, self.acc, self.arrived, self.round = self.acc, None, 0, self.round + 1
                self.cv.notify_all()
            else:
                self.cv.wait_for(lambda: self.round != my)
            return list(self.result)


class FakeSidecar:
    def __init__(self, plans):
        self.plans = plans  # version -> earliest step

    def heads(self, generation, step):
        eligible = [v for v, e in self.plans.items() if v.generation == generation and e <= step]
        return (max(eligible) if eligible else None, min(self.plans) if self.plans else None)

    def plan(self, v):
        return {"version": str(v)} if v in self.plans else None


def test_ranks_agree_even_when_their_sidecars_differ():
    sidecars = [FakeSidecar({V(1, 1): 0, V(1, 2): 5}), FakeSidecar({V(1, 1): 0}), FakeSidecar({V(1, 1): 0, V(1, 2): 5})]
    ar = Barrier(3)
    adopters = [adoption.PlanAdopter(s, ar, 1) for s in sidecars]
    seen = []

    def run(a, out):
        for step in range(10):
            a.at_step_boundary(step)
            out.append((step, a.current_version))

    outs = [[] for _ in adopters]
    threads = [threading.Thread(target=run, args=(a, o)) for a, o in zip(adopters, outs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for step in range(10):
        seen = {o[step][1] for o in outs}
        assert len(seen) == 1, (step, seen)
    assert outs[0][-1][1] == V(1, 1)  # rank 1's sidecar never got 1.2: nobody adopts it


def test_torch_is_imported_only_when_asked_for():
    import subprocess
    import sys
    code = "import sys, ballast_client; assert 'torch' not in sys.modules; print('ok')"
    out = subprocess.run([sys.executable, "-c", code], cwd=str(__import__('pathlib').Path(__file__).parents[1]),
                         capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr
