/** Projection status for operators, read-only (issue 19, "Operator"). */
export default function OperatorArea() {
  return <h1>Operator</h1>;
}
