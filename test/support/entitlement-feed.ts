/** What the tests read of the entitlement change feed and snapshot (rules/interface C). */
export interface FeedEntitlement {
  actorId: string;
  status: string;
  plan: string;
  sequence: number;
}
export interface ChangesPage {
  items: { sequence: number; actorId: string; entitlement: FeedEntitlement | null }[];
  meta: { hasMore: boolean; lastSequence: number; latestSequence: number };
}
export interface SnapshotPage {
  asOfSequence: number;
  items: FeedEntitlement[];
  meta: { hasMore: boolean; nextCursor: string | null };
}
