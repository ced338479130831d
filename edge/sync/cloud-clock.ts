/**
 * The cloud-clock bound of the command handler (command-handler.ts, point 2 of its comment): a
 * command counts as late against the fastest recent delivery, whatever this edge's wall clock says.
 */

/** Offset samples older than this are dropped (clock drift and steps stay bounded). */
const SAMPLE_WINDOW_MS = 60 * 60_000;
const MAX_SAMPLES = 64;

/**
 * A lower bound of the cloud's clock: the cloud's send time minus our monotonic arrival time is at
 * most (cloud clock - monotonic clock), since transit takes time; the largest recent one is the best.
 */
export class CloudClockBound {
  private samples: Array<{ offset: number; at: number }> = [];

  observe(sentAt: number, arrivedMono: number): void {
    this.prune(arrivedMono);
    this.samples.push({ offset: sentAt - arrivedMono, at: arrivedMono });
    if (this.samples.length > MAX_SAMPLES) this.samples.shift();
  }

  /** Cloud epoch ms now, at least; undefined without a recent sample. */
  atLeast(nowMono: number): number | undefined {
    this.prune(nowMono);
    if (this.samples.length === 0) return undefined;
    return nowMono + Math.max(...this.samples.map((s) => s.offset));
  }

  private prune(nowMono: number): void {
    this.samples = this.samples.filter((s) => nowMono - s.at <= SAMPLE_WINDOW_MS);
  }
}
