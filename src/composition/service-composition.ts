import { allProjections } from '../../projections/index.js';
import type { ServiceContextOptions } from '../platform/service-context.js';
import { openFeatureStorage } from './feature-storage.js';

/**
 * What the service is made of, for the platform: its read models and its features' stores. Every composition
 * root (main.ts, the CLI, the test setup, benchmarks, scripts) opens its ServiceContext with it, so the
 * platform itself names no feature.
 */
export const serviceComposition = {
  projections: allProjections,
  features: openFeatureStorage,
} satisfies Pick<ServiceContextOptions, 'projections' | 'features'>;
