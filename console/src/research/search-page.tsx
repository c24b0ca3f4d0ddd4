/** Placeholder: built by the researcher pages' work. */
export default function SearchPage() {
  return <h1>Search</h1>;
}
