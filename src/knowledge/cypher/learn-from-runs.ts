/**
 * Learning from a batch of recorded runs: TeamConfig and proficiency statistics updated from the
 * runs' verifier scores (the rules are registry.ts's), each team and proficiency written once with
 * its final totals, inside the recorder's write transaction.
 */
import type { Proficiency, RunRecord, TeamConfig } from '../store.ts';
import {
  applyObservation,
  applyTeamRun,
  emptyProficiency,
  observationsOf,
  teamId,
  teamOf,
  type ProficiencyTotals,
} from '../registry.ts';
import { proficiencyFromNode, specialistFromNode, str, teamFromNode } from '../rows.ts';
import type { KnowledgeView } from '../view.ts';
import { nodeOf, type RunStatement } from './executor.ts';
import type { QuerySet } from './queries.ts';

/** What a batch of recorded runs taught, as committed: written through to the view. */
export interface Learnt {
  teams: TeamConfig[];
  proficiencies: { id: string; totals: ProficiencyTotals }[];
}

export const proficiencyId = (kind: Proficiency['kind'], subject: string) => `${kind}:${subject}`;

export function applyLearnt(view: KnowledgeView, learnt: Learnt): void {
  for (const team of learnt.teams) view.applyTeam(team);
  for (const p of learnt.proficiencies) view.applyProficiency(p.id, p.totals);
}

/**
 * Updates TeamConfig and proficiency statistics from the runs' verifier scores, in the runs'
 * order, and writes each team and proficiency once with its final totals; returns what it wrote.
 * `view` answers what it knows (teams, domains); `serial` is the view again when this process is the
 * only writer (then authoritative: no locking reads).
 */
export async function learnFromRuns(
  q: RunStatement,
  Q: QuerySet,
  runs: RunRecord[],
  view: KnowledgeView | undefined,
  serial?: KnowledgeView,
): Promise<Learnt> {
  const learnt: Learnt = { teams: [], proficiencies: [] };
  const teamRuns = runs.flatMap((run) => {
    const team = teamOf(run);
    return team ? [{ run, team }] : [];
  });
  if (teamRuns.length) {
    // A team the router reused counts when it exists (the view knows most; the rest are looked up).
    const claimed = [
      ...new Set(teamRuns.flatMap(({ run }) => (run.teamConfigId === undefined ? [] : [run.teamConfigId]))),
    ];
    const existing = new Set(claimed.filter((id) => view?.hasTeam(id)));
    const unknown = claimed.filter((id) => !existing.has(id));
    if (unknown.length) for (const r of await q(Q.teamsByIds, { ids: unknown })) existing.add(str(nodeOf(r, 't').id));
    const idOf = (run: RunRecord, team: { pattern: string; specialists: string[] }) =>
      run.teamConfigId !== undefined && existing.has(run.teamConfigId)
        ? run.teamConfigId
        : teamId(team.pattern, team.specialists, run.callerId);
    const ids = [...new Set(teamRuns.map(({ run, team }) => idOf(run, team)))].sort();
    const stored = new Map<string, TeamConfig>();
    if (serial) {
      // A serial writer knows from its view whether a team exists, and usually holds it whole.
      const unread: string[] = [];
      for (const id of ids) {
        if (!serial.hasTeam(id)) continue;
        const whole = serial.fullTeam(id);
        if (whole) stored.set(id, whole);
        else unread.push(id);
      }
      if (unread.length)
        for (const r of await q(Q.teamsByIds, { ids: unread }))
          stored.set(str(nodeOf(r, 't').id), teamFromNode(nodeOf(r, 't')));
    } else {
      // Lock-and-read (sorted, so two processes lock in the same order): concurrent batches of
      // the same team (Neo4j) serialise here instead of losing updates.
      for (const r of await q(Q.lockTeams, { ids })) stored.set(str(nodeOf(r, 't').id), teamFromNode(nodeOf(r, 't')));
    }
    const next = new Map<string, TeamConfig>();
    const links: { runId: string; teamId: string }[] = [];
    for (const { run, team } of teamRuns) {
      const id = idOf(run, team);
      const current = next.get(id) ?? stored.get(id);
      const base: TeamConfig =
        current && current.uses > 0
          ? current
          : {
              id,
              callerId: run.callerId,
              pattern: team.pattern,
              specialists: team.specialists,
              plan: run.plan!,
              uses: 0,
              successes: 0,
              avgScore: 0,
            };
      next.set(id, applyTeamRun(base, run));
      links.push({ runId: run.id, teamId: id });
    }
    learnt.teams = [...next.values()];
    await q(Q.upsertTeams, {
      teams: learnt.teams.map((t) => ({
        id: t.id,
        callerId: t.callerId ?? '',
        pattern: t.pattern,
        specialists: JSON.stringify(t.specialists),
        plan: JSON.stringify(t.plan),
        uses: t.uses,
        successes: t.successes,
        avgScore: t.avgScore,
      })),
    });
    await q(Q.linkRunTeams, { links });
  }
  const observations = runs.flatMap(observationsOf);
  if (observations.length === 0) return learnt;
  const ids = [...new Set(observations.map((o) => o.specialistId))];
  // Domains from the view when it knows every specialist (it always has this process's ingests).
  const domainsOf =
    view && ids.every((id) => view.domainsOf(id) !== undefined)
      ? new Map(ids.map((id) => [id, view.domainsOf(id)!] as const))
      : new Map(
          (await q(Q.specialistsByIds, { ids })).map((r) => {
            const s = specialistFromNode(nodeOf(r, 's'));
            return [s.id, s.domains as readonly string[]] as const;
          }),
        );
  const keys = new Set<string>();
  for (const { specialistId } of observations) {
    keys.add(proficiencyId('specialist', specialistId));
    for (const domain of domainsOf.get(specialistId) ?? []) keys.add(proficiencyId('domain', domain));
  }
  // Lock-and-read (MERGE creates what is missing; sorted), so concurrent writers never lose an
  // update; a serial writer's view holds every proficiency already.
  const totals = new Map<string, ProficiencyTotals>();
  if (serial) {
    for (const key of keys) {
      const p = serial.proficiency(key);
      if (p) totals.set(key, p);
    }
  } else {
    for (const r of await q(Q.lockProficiencies, { ids: [...keys].sort() }))
      totals.set(str(nodeOf(r, 'p').id), proficiencyFromNode(nodeOf(r, 'p')));
  }
  const bump = (kind: Proficiency['kind'], subject: string, o: (typeof observations)[number]['observation']) => {
    const key = proficiencyId(kind, subject);
    const before = totals.get(key);
    // A freshly merged node has no counts yet: start from an empty record.
    const base = before && before.runs > 0 ? before : emptyProficiency(subject, kind);
    totals.set(key, applyObservation({ ...base, subject, kind }, o));
  };
  for (const { specialistId, observation } of observations) {
    bump('specialist', specialistId, observation);
    for (const domain of domainsOf.get(specialistId) ?? []) bump('domain', domain, observation);
  }
  const rows = [...keys].map((id) => ({ id, ...totals.get(id)! }));
  await q(Q.upsertProficiencies, { rows });
  learnt.proficiencies = rows.map(({ id, ...totals }) => ({ id, totals }));
  return learnt;
}
