/** Placeholder: built by the researcher pages' work. */
export default function CreditsPage() {
  return <h1>Credits</h1>;
}
