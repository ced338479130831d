/** The Yard inventory screen (being built). */
export function Inventory() {
  return <h1>Yard inventory</h1>;
}
