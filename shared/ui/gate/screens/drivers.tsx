/** The Drivers screen (being built). */
export function Drivers() {
  return <h1>Drivers</h1>;
}
