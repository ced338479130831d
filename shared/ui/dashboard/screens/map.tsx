/** Placeholder until this screen is built (issue 15). */
export function YardMap() {
  return <p class="muted">This screen is being built.</p>;
}
