/** The Movements screen (being built). */
export function Movements() {
  return <h1>Movements</h1>;
}
