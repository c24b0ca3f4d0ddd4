/** Placeholder: built by the organization team work. */
export default function Billing({ orgId }: { orgId: string }) {
  return <h2 data-org={orgId}>Billing</h2>;
}
