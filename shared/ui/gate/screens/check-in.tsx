/** The Check in screen (being built). */
export function CheckIn() {
  return <h1>Check in</h1>;
}
