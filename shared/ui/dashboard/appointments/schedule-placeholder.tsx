/**
 * Stands in for the dock schedule (schedule.tsx, `DockSchedule`) until that screen is merged in:
 * the appointments area mounts it under Schedule.
 */
export function DockSchedule(_props: { yardId: string }) {
  return (
    <section aria-labelledby="schedule-heading">
      <h2 id="schedule-heading">Dock schedule</h2>
      <p class="muted">The dock schedule is not part of this build yet.</p>
    </section>
  );
}
