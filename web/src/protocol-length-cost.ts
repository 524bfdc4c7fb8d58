// The messages of the anatomy's "Cost against length" plot between the page and the worker. protocol.ts adds
// them to its unions. The page asks for one point (a variant at a length) at a time: it knows its progress,
// and the worker answers other requests between points.
import type { LengthCostPlan, LengthCostPoint } from '@glassbox/engine';

export type { LengthCostPlan, LengthCostPoint } from '@glassbox/engine';

export type LengthCostRequest =
  | { type: 'length-cost-plan'; req: number }
  | { type: 'length-cost'; req: number; attention: string; length: number; repeat: number };

export interface LengthCostReplies {
  'length-cost-plan': LengthCostPlan;
  'length-cost': LengthCostPoint;
}

const lengthCostKinds: Record<keyof LengthCostReplies, true> = { 'length-cost-plan': true, 'length-cost': true };
export const isLengthCostRequest = (type: string): type is keyof LengthCostReplies => Object.hasOwn(lengthCostKinds, type);
