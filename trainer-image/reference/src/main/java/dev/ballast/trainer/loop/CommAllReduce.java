package dev.ballast.trainer.loop;

import dev.ballast.client.AllReduce;
import dev.ballast.collectives.RankComm;
import dev.ballast.collectives.ReduceOp;

/** The adoption rule's MIN all-reduce over the ranks' collectives: every rank of every pod takes part. */
public final class CommAllReduce implements AllReduce {

    private final RankComm comm;

    public CommAllReduce(RankComm comm) {
        this.comm = comm;
    }

    @Override
    public long[] min(long[] local) {
        return comm.allReduce(local, ReduceOp.MIN);
    }
}
