/** The Check out screen (being built). */
export function CheckOut() {
  return <h1>Check out</h1>;
}
