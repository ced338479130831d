import { PageQuery } from '../../http/common-schemas.js';
import { z } from '../../http/zod.js';

export const LinkState = z.enum(['online', 'offline', 'never']);

/** The data of the live `sync.link` event (shared/events.ts), published by a linked edge. */
export const SyncLinkData = z.object({
  link: LinkState,
  since: z
    .string()
    .nullable()
    .openapi({ description: 'When the link state last changed (SyncStatus.linkSince)' }),
  queued: z.number().int().openapi({ description: 'Changes waiting to be sent to the cloud' }),
});

export const SiteSyncStatusOut = z
  .object({
    siteId: z.string(),
    name: z.string(),
    link: LinkState.openapi({
      description: "What the site's retained status last said ('never': not yet heard from)",
    }),
    lastSeenAt: z.string().nullable(),
    lagMs: z
      .number()
      .int()
      .openapi({ description: 'Age of the oldest change waiting for the site (0 when none)' }),
    queued: z.number().int().openapi({ description: 'Changes waiting to be sent to the site' }),
    reportedQueued: z.number().int().openapi({ description: "The site's own queue, as it last reported" }),
    deadLetters: z.number().int(),
    clockSkewMs: z
      .number()
      .int()
      .openapi({ description: 'Site clock minus cloud clock, from its last status' }),
    schemaV: z.number().int().nullable(),
    version: z.string().nullable(),
    linkSince: z
      .string()
      .nullable()
      .openapi({ description: 'When the link state last changed (null: not since the site was added)' }),
    gates: z
      .array(
        z.object({
          gateId: z.string(),
          state: z.enum(['ok', 'fault', 'opening', 'idle', 'unknown']),
        }),
      )
      .nullable()
      .openapi({
        description:
          "Each gate's relay state as the site last reported it (null: the site has not reported gates; an older edge)",
      }),
  })
  .openapi('SiteSyncStatus');
export type SiteSyncStatusOutT = z.infer<typeof SiteSyncStatusOut>;

/** What every side reports; a linked edge and the cloud add their own (SyncStatusOut). */
const SyncStatusBase = z.object({
  siteId: z.string(),
  lastSeq: z.number().int(),
  ackedSeq: z.number().int(),
  queued: z.number().int(),
  deadLetters: z.number().int(),
  clockSkewMs: z.number().int(),
});

/** GET /api/sync/status, by `mode`: a client that checked the mode reads the fields of that mode. */
export const SyncStatusOut = z
  .discriminatedUnion('mode', [
    SyncStatusBase.extend({ mode: z.literal('standalone'), role: z.literal('edge') }).openapi(
      'SyncStatusStandalone',
    ),
    SyncStatusBase.extend({
      mode: z.literal('linked'),
      role: z.literal('edge'),
      link: LinkState,
      linkSince: z.string().nullable().openapi({
        description:
          'When the link state last changed (online <-> offline), ISO time; null when it has not changed since the edge started. Live: the `sync.link` event.',
      }),
      lastAckAt: z.string().nullable(),
      appliedRemoteSeq: z.number().int(),
      pending: z.number().int().openapi({ description: 'Rows kept for a newer schema than ours' }),
    }).openapi('SyncStatusLinked'),
    SyncStatusBase.extend({
      mode: z.literal('cloud'),
      role: z.literal('cloud'),
      sites: z.array(SiteSyncStatusOut),
      node: z
        .object({
          id: z.string(),
          sendsTo: z.array(z.string()).openapi({ description: 'Sites this node sends changes to now' }),
          applied: z.object({
            batches: z.number().int(),
            rows: z.number().int(),
          }),
        })
        .openapi({
          description:
            "The cloud node that answered (several may share one PostgreSQL): the sites it sends to (one node per site) and the sites' batches it applied since it started.",
        }),
    }).openapi('SyncStatusCloud'),
  ])
  .openapi('SyncStatus');

export const DeadLetterOut = z
  .object({
    id: z.number().int(),
    peer: z.string(),
    seq: z.number().int(),
    entity: z.string(),
    entityId: z.string(),
    error: z.string(),
    data: z.unknown(),
    at: z.string(),
  })
  .openapi('DeadLetter');

export const DeadLetterQuery = PageQuery.extend({ peer: z.string().min(1).max(64).optional() });

export const DeadLetterRetryIn = z
  .object({
    peer: z.string().min(1).max(64).optional(),
    ids: z.array(z.number().int().positive()).min(1).max(1000).optional(),
  })
  .strict()
  .openapi('DeadLetterRetry', {
    description:
      'Which dead letters to apply again: the given ids, or every one of a peer, or (empty body {}) all of them.',
    example: { peer: 'site-berlin', ids: [17, 18] },
  });

export const DeadLetterRetryOut = z
  .object({ retried: z.number().int(), applied: z.number().int() })
  .openapi('DeadLetterRetryResult');

export const AdoptIn = z
  .object({
    ids: z.array(z.number().int().positive()).min(1).max(1000).openapi({
      description:
        'Dead letter ids to adopt, each one the adoption preview lists as adoptable; if any is not, nothing is adopted (409 `not-adoptable`).',
    }),
  })
  .strict()
  .openapi('AdoptSiteRecords', {
    description:
      "Which of the site's refused master-data rows (yards, their locations, carriers) to take as the cloud's own.",
    example: { ids: [17, 18] },
  });

export const AdoptOut = z
  .object({
    adopted: z.number().int().openapi({ description: "Rows inserted as the cloud's own (where absent)." }),
    applied: z
      .number()
      .int()
      .openapi({ description: "The site's other dead letters that applied on the retry that follows." }),
  })
  .openapi('AdoptSiteRecordsResult');

const AdoptionRowOut = z
  .object({
    deadLetterId: z.number().int(),
    id: z.string().openapi({ description: "The record's id." }),
    op: z.enum(['upsert', 'delete']),
    fields: z
      .record(z.string(), z.unknown())
      .openapi({ description: 'What the record is (name, code, yard, role...); never a hash or a secret.' }),
  })
  .openapi('AdoptionRow');

const AdoptionRefusedOut = AdoptionRowOut.extend({
  rule: z.enum(['linked-from-start', 'never-adopted', 'other-site', 'delete']).openapi({
    description:
      '`linked-from-start`: the site was provisioned linked (its edge never ran on its own); `never-adopted`: users, ' +
      'API keys, settings, integrations and provider cameras are made at the cloud only; `other-site`: a yard naming ' +
      "another site, or a location in another site's yard; `delete`: a site never deletes the cloud's records.",
  }),
  reason: z.string(),
}).openapi('AdoptionRefusedRow');

export const AdoptionPreviewOut = z
  .object({
    siteId: z.string(),
    wasStandalone: z.boolean().openapi({
      description:
        'Provisioning recorded that the edge ran standalone before it was linked (`site:add --was-standalone`); ' +
        'otherwise nothing of the site is adopted.',
    }),
    kinds: z
      .array(
        z.object({
          entity: z.string().openapi({ description: 'yard, location, carrier, user, api_key, setting...' }),
          adoptable: z.array(AdoptionRowOut),
          refused: z.array(AdoptionRefusedOut),
        }),
      )
      .openapi({ description: "The site's dead letters refused as cloud-owned, grouped by kind." }),
  })
  .openapi('AdoptionPreview');
