export function App() {
  return (
    <main class="shell">
      <h1>dsh dispatch</h1>
      <p>Approve, answer and steer the coding agents on your machines.</p>
      <a class="cta" href="#/pair">
        Pair a machine
      </a>
    </main>
  );
}
