/** Placeholder: built by the organization team work. */
export default function ReviewQueue({ orgId }: { orgId: string }) {
  return <h2 data-org={orgId}>ReviewQueue</h2>;
}
