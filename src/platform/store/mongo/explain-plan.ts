import type { Document as MongoDocument } from 'mongodb';
import type { QueryPlan } from '../document-store.js';

/**
 * The port's QueryPlan from the server's `explain('queryPlanner')`: a collection scan anywhere
 * in the winning plan is a COLLSCAN; otherwise the indexes it scans. Both plan formats are
 * read: the classic engine's stage tree and the slot-based engine's (`winningPlan.queryPlan`).
 */
export function planFromExplain(explained: MongoDocument): QueryPlan {
  const winning = (explained.queryPlanner as MongoDocument | undefined)?.winningPlan as
    MongoDocument | undefined;
  const stages: MongoDocument[] = [];
  collectStages((winning?.queryPlan as MongoDocument | undefined) ?? winning, stages);
  if (stages.length === 0 || stages.some((stage) => stage.stage === 'COLLSCAN'))
    return { stage: 'COLLSCAN', indexes: [] };
  const indexes = stages.flatMap((stage) => {
    if (typeof stage.indexName === 'string') return [stage.indexName];
    return stage.stage === 'IDHACK' || stage.stage === 'EXPRESS_IXSCAN' ? ['_id_'] : [];
  });
  return indexes.length > 0
    ? { stage: 'IXSCAN', indexes: [...new Set(indexes)] }
    : { stage: 'COLLSCAN', indexes: [] };
}

function collectStages(stage: MongoDocument | undefined, out: MongoDocument[]): void {
  if (!stage) return;
  out.push(stage);
  collectStages(stage.inputStage as MongoDocument | undefined, out);
  for (const input of (stage.inputStages as MongoDocument[] | undefined) ?? [])
    collectStages(input, out);
}
