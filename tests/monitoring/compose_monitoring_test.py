#!/usr/bin/env python3
"""compose.yaml's "monitoring" profile fits together (no registry is reached:
the images are not pulled, the files they are given are checked).

  compose_monitoring_test.py SOURCE_DIR

Checks that Prometheus and Grafana run only in the profile, from the official
images; that every file they mount exists; that Prometheus scrapes the broker
service on the port the image serves /metrics on; that Grafana's data source
is that Prometheus; and that Grafana's dashboard provider loads the directory
the dashboard (docs/grafana/spillway.json) is mounted in.
"""
import json
import os
import re
import sys

import yaml

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def container_port(mapping):
    """The container side of a compose port mapping ("127.0.0.1:3000:3000")."""
    return int(str(mapping).split(":")[-1].split("/")[0])


def bind_mounts(service):
    """(host path, container path) of each ./-relative bind mount."""
    mounts = []
    for volume in service.get("volumes", []):
        parts = volume.split(":")
        if parts[0].startswith("./"):
            mounts.append((parts[0], parts[1]))
    return mounts


def main():
    source = sys.argv[1]
    with open(os.path.join(source, "compose.yaml")) as f:
        compose = yaml.safe_load(f)
    services = compose["services"]
    broker = services["broker"]
    prometheus = services.get("prometheus")
    grafana = services.get("grafana")
    if prometheus is None or grafana is None:
        print("compose.yaml has no prometheus or grafana service")
        return 1
    check("profiles" not in broker, "the broker must start without a profile")
    for name, service, image in (("prometheus", prometheus, "prom/prometheus:"),
                                 ("grafana", grafana, "grafana/grafana:")):
        check(service.get("profiles") == ["monitoring"],
              f"{name}: profiles is {service.get('profiles')}, not [monitoring]")
        check(service.get("image", "").startswith(image), f"{name}: image {service.get('image')}")
        for host, _ in bind_mounts(service):
            check(os.path.isfile(os.path.join(source, host)), f"{name} mounts {host}, which is missing")
        for volume in service.get("volumes", []):
            named = volume.split(":")[0]
            if not named.startswith("./"):
                check(named in compose.get("volumes", {}), f"{name}: volume {named} is not declared")

    # Prometheus scrapes the broker service where the image serves /metrics.
    mounts = dict((c, h) for h, c in bind_mounts(prometheus))
    config_arg = [a for a in prometheus.get("command", []) if a.startswith("--config.file=")]
    check(len(config_arg) == 1, "prometheus: no --config.file")
    config_path = config_arg[0].split("=", 1)[1] if config_arg else ""
    check(config_path in mounts, f"prometheus: {config_path} is not mounted from the repository")
    with open(os.path.join(source, mounts.get(config_path, "docker/monitoring/prometheus.yml"))) as f:
        prometheus_config = yaml.safe_load(f)
    targets = [t for job in prometheus_config["scrape_configs"]
               for sc in job.get("static_configs", []) for t in sc["targets"]]
    with open(os.path.join(source, "docker/container-config.sh")) as f:
        container_config = f.read()
    served = re.search(r'section == "\[metrics\]" && /\^listen \*=/ \{ print "listen = \\"0\.0\.0\.0:(\d+)\\""',
                       container_config)
    check(served is not None, "docker/container-config.sh: no [metrics] listen on 0.0.0.0")
    if served:
        port = int(served.group(1))
        check(f"broker:{port}" in targets, f"prometheus scrapes {targets}, not broker:{port}")
        check(port in [container_port(p) for p in broker.get("ports", [])],
              f"the broker service does not publish {port}")

    # Grafana: the data source is that Prometheus, the dashboard is loaded.
    grafana_mounts = dict((c, h) for h, c in bind_mounts(grafana))
    prometheus_ports = [container_port(p) for p in prometheus.get("ports", [])]
    datasources = [h for c, h in grafana_mounts.items()
                   if c.startswith("/etc/grafana/provisioning/datasources/")]
    providers = [h for c, h in grafana_mounts.items()
                 if c.startswith("/etc/grafana/provisioning/dashboards/")]
    dashboards = [c for c, h in grafana_mounts.items() if h == "./docs/grafana/spillway.json"]
    check(len(datasources) == 1 and len(providers) == 1 and len(dashboards) == 1,
          "grafana must mount one data source file, one dashboard provider and the dashboard")
    if datasources:
        with open(os.path.join(source, datasources[0])) as f:
            urls = [d["url"] for d in yaml.safe_load(f)["datasources"] if d["type"] == "prometheus"]
        check([f"http://prometheus:{p}" for p in prometheus_ports] == urls,
              f"grafana's Prometheus data source is {urls}, prometheus serves {prometheus_ports}")
    if providers and dashboards:
        with open(os.path.join(source, providers[0])) as f:
            paths = [p["options"]["path"] for p in yaml.safe_load(f)["providers"]]
        check(os.path.dirname(dashboards[0]) in paths,
              f"the dashboard is mounted at {dashboards[0]}, the provider reads {paths}")
        home = grafana.get("environment", {}).get("GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH")
        check(home in (None, dashboards[0]), f"the home dashboard {home} is not the one mounted")
    with open(os.path.join(source, "docs/grafana/spillway.json")) as f:
        check(json.load(f).get("uid") == "spillway", "docs/grafana/spillway.json: uid")

    for failure in failures:
        print("FAIL:", failure)
    if not failures:
        print(f"monitoring profile: prometheus scrapes {targets}; grafana mounts "
              f"{len(grafana_mounts)} files")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
