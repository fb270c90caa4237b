package dev.ballast.client;

/** The trainer API's load-report body (docs/protocol.md, "POST /v1/loads"). */
public final class ReportJson {
    private ReportJson() {
    }

    public static String encode(LoadReport r) {
        StringBuilder sb = new StringBuilder(64 + r.counts().length * r.counts()[0].length * 6);
        sb.append("{\"worldGeneration\":").append(r.worldGeneration())
                .append(",\"step\":").append(r.step())
                .append(",\"gpuRank\":").append(r.gpuRank())
                .append(",\"firstLayer\":").append(r.firstLayer());
        if (r.adopted() != null) {
            sb.append(",\"adopted\":\"").append(r.adopted()).append('"');
        }
        sb.append(",\"counts\":[");
        long[][] c = r.counts();
        for (int l = 0; l < c.length; l++) {
            if (l > 0) {
                sb.append(',');
            }
            sb.append('[');
            for (int e = 0; e < c[l].length; e++) {
                if (e > 0) {
                    sb.append(',');
                }
                sb.append(c[l][e]);
            }
            sb.append(']');
        }
        return sb.append("]}").toString();
    }
}
