// For lesson pages that embed Gradwalk: each embedded widget reports its height
// ({type: "gradwalk:height", height} through postMessage), and this grows its
// iframe to fit, so the lesson scrolls as one page instead of frames in frames.
//
//   <iframe src="https://…/index.html?embed=1&preset=diamond" title="…" height="760"></iframe>
//   <script src="https://…/embed-resize.js" defer></script>
//
// Only the iframe that sent a message is resized, and only within sane bounds.

window.addEventListener("message", (event) => {
  const data = event.data;
  if (!data || data.type !== "gradwalk:height" || !Number.isFinite(data.height)) return;
  for (const frame of document.querySelectorAll("iframe")) {
    if (frame.contentWindow === event.source) {
      frame.style.height = `${Math.max(240, Math.min(6000, Math.round(data.height)))}px`;
    }
  }
});
