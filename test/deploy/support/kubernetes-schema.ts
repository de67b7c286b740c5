/**
 * Checks a rendered manifest against the Kubernetes API schema of its kind (kubernetes-models:
 * validators generated from Kubernetes' OpenAPI document; prometheus-operator's CRD schema for
 * ServiceMonitor and PrometheusRule). Types, required fields, enums and formats are checked; a kind the chart
 * starts to render without a schema here fails rather than passing unchecked.
 */
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { ConfigMap, Service, ServiceAccount } from 'kubernetes-models/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import {
  PrometheusRule,
  ServiceMonitor,
} from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import type { Manifest } from './helm.js';

type Validator = new (data: never) => { validate(): void };

const MODELS: Readonly<Record<string, Validator>> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'apps/v1/Deployment': Deployment,
  'batch/v1/Job': Job,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
  'monitoring.coreos.com/v1/PrometheusRule': PrometheusRule,
};

export function validateManifest(manifest: Manifest): void {
  const Model = MODELS[`${manifest.apiVersion}/${manifest.kind}`];
  if (!Model) throw new Error(`no Kubernetes schema for ${manifest.apiVersion} ${manifest.kind}`);
  new Model(manifest as never).validate();
}
