// Failures as one readable sentence for the page.

// Python errors arrive as full tracebacks, whose last line ("ValueError: ...")
// is what a person needs.
export function sentence(error) {
  const text = String(error?.message ?? error ?? "Unknown error").trim();
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  return lines.length > 1 ? lines[lines.length - 1].trim() : text;
}

// A failure deep inside Pyodide, prefixed with what it means for the learner.
export function explained(promise, what) {
  return promise.catch((error) => {
    throw new Error(`${what}: ${sentence(error)}`);
  });
}
