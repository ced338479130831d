/** The Lanes screen (being built). */
export function Lanes() {
  return <h1>Lanes</h1>;
}
