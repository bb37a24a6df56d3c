#!/usr/bin/env bash
# Applies an overlay with its migrations first:
#
#   k8s/apply.sh k8s/overlays/prod
#
# 1. delete the previous migration Jobs (a Job's pod template is immutable,
#    so a new image or setting needs a new Job; finished ones also remove
#    themselves after an hour, ttlSecondsAfterFinished);
# 2. apply everything except the Deployments (label
#    app.kubernetes.io/component=server): ConfigMaps, ServiceAccounts,
#    NetworkPolicies, Services, HPAs, PDBs, the Ingress and the Jobs;
# 3. wait until every migration Job has completed (a failed migration stops
#    the rollout here, with the old pods still serving);
# 4. apply everything: the Deployments roll onto the migrated schema.
#
# Migrations are expand-only within a release, so the old pods keep working
# on the new schema while the Deployments roll. Each container also migrates
# at start under an advisory lock, so a plain `kubectl apply` still ends on
# a migrated schema; what the Jobs add is a migration failure that stops the
# rollout before any pod restarts. (A plain apply fails on a Job that is
# still there with another pod template: step 1 is what avoids that.)
set -euo pipefail
overlay=${1:?usage: k8s/apply.sh k8s/overlays/<overlay>}
rendered=$(mktemp)
trap 'rm -f "$rendered"' EXIT
kubectl kustomize "$overlay" >"$rendered"
kubectl delete -f "$rendered" -l app.kubernetes.io/component=migration --ignore-not-found --wait
kubectl apply -f "$rendered" -l 'app.kubernetes.io/component!=server'
kubectl wait -f "$rendered" -l app.kubernetes.io/component=migration --for=condition=complete --timeout=11m
kubectl apply -f "$rendered"
