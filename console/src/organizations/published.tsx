/** Placeholder: built by the organization team work. */
export default function Published({ orgId }: { orgId: string }) {
  return <h2 data-org={orgId}>Published</h2>;
}
