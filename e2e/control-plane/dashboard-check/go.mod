// Wrapper module: dashboard-check, the chart's Grafana dashboard checked against Grafana's
// dashboard schema through the Grafana Foundation SDK (Apache-2.0; Grafana's server is AGPL and
// is not used).
module ballast.dev/e2e/control-plane/dashboard-check

go 1.26.0

require github.com/grafana/grafana-foundation-sdk/go v0.0.22
