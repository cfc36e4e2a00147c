import { useQuery } from '@tanstack/react-query';
import { get } from './api';

/** Release plan templates and plans as the API answers them (docs/api.md §10i). */

export interface MilestoneStrategy {
  id: string;
  name: string;
  title: string | null;
  parameters: Record<string, string>;
}

export interface Milestone {
  id: string;
  name: string;
  sortOrder: number;
  strategies: MilestoneStrategy[];
  startedAt: string | null;
  pausedAt: string | null;
  progressionExecutedAt: string | null;
  transitionCondition: { intervalMinutes: number } | null;
}

export interface Template {
  id: string;
  name: string;
  description: string | null;
  milestones: Milestone[];
}

export interface Plan extends Template {
  activeMilestoneId: string | null;
}

export const TEMPLATES_KEY = ['release-plan-templates'] as const;

export const useTemplates = () =>
  useQuery({ queryKey: TEMPLATES_KEY, queryFn: () => get<Template[]>('api/admin/release-plan-templates') });

/** What a milestone puts on the flag environment, in a few words. */
export function describeMilestone(m: Pick<Milestone, 'strategies'>): string {
  if (m.strategies.length === 0) return 'no strategies';
  return m.strategies
    .map((s) =>
      s.name === 'flexibleRollout' ? `${s.parameters.rollout ?? '?'}% rollout` : (s.title ?? s.name),
    )
    .join(', ');
}
