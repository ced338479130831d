import type { Kdb } from '../../db/database.js';
import { ConflictError, NotFoundError } from '../../http/errors.js';
import { taskRepo } from './repo.js';

/**
 * Checks the records a task refers to, inside the write's transaction, remembering each lookup
 * (a batch of 200 tasks usually names the same yard and a few locations). `label` prefixes the
 * message in batches ("tasks[3]: ...") so the caller sees which task was refused.
 */
export class TaskRefs {
  private readonly cache = new Map<string, Promise<unknown>>();

  constructor(private readonly trx: Kdb) {}

  async yard(yardId: string, label = ''): Promise<void> {
    const yard = await this.memo(`yard:${yardId}`, () => taskRepo.yard(this.trx, yardId));
    if (!yard) throw new NotFoundError(`${label}Yard`, yardId);
  }

  async location(yardId: string, locationId: string, label = ''): Promise<void> {
    const loc = await this.memo(`location:${locationId}`, () => taskRepo.location(this.trx, locationId));
    if (!loc) throw new NotFoundError(`${label}Location`, locationId);
    if (loc.yardId !== yardId) {
      throw new ConflictError(
        'location-not-in-yard',
        `${label}Location ${locationId} belongs to another yard than the task.`,
        { locationId, yardId },
      );
    }
  }

  /**
   * The trailer must be in the task's yard now (checked in at a gate, not yet out). Answers the
   * spot it stands on (null when checked in without one).
   */
  async trailer(yardId: string, trailerId: string, label = ''): Promise<string | null> {
    const trailer = await this.memo(`trailer:${trailerId}`, () => taskRepo.trailer(this.trx, trailerId));
    if (!trailer) throw new NotFoundError(`${label}Trailer`, trailerId);
    if (trailer.yardId !== yardId) {
      throw new ConflictError(
        'trailer-not-in-yard',
        `${label}Trailer ${trailerId} is not in the task's yard.`,
        {
          trailerId,
          yardId,
          trailerYardId: trailer.yardId,
        },
      );
    }
    return trailer.locationId;
  }

  /** Tasks go to active yard drivers (jockeys), never to carrier drivers. */
  async driver(driverId: string, label = ''): Promise<void> {
    const driver = await this.memo(`driver:${driverId}`, () => taskRepo.driver(this.trx, driverId));
    if (!driver) throw new NotFoundError(`${label}Driver`, driverId);
    if (driver.kind !== 'yard') {
      throw new ConflictError(
        'not-a-yard-driver',
        `${label}Driver ${driverId} is a carrier driver, not a yard driver.`,
      );
    }
    if (driver.status !== 'active') {
      throw new ConflictError('driver-blocked', `${label}Driver ${driverId} is blocked.`);
    }
  }

  /** Every reference a task's fields make (null and undefined mean none). */
  async fields(
    yardId: string,
    f: {
      trailerId?: string | null | undefined;
      fromLocationId?: string | null | undefined;
      toLocationId?: string | null | undefined;
      driverId?: string | null | undefined;
    },
    label = '',
  ): Promise<void> {
    if (f.trailerId) await this.trailer(yardId, f.trailerId, label);
    if (f.fromLocationId) await this.location(yardId, f.fromLocationId, label);
    if (f.toLocationId) await this.location(yardId, f.toLocationId, label);
    if (f.driverId) await this.driver(f.driverId, label);
  }

  private memo<T>(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.cache.get(key) as Promise<T> | undefined;
    if (hit) return hit;
    const loading = load();
    this.cache.set(key, loading);
    return loading;
  }
}
