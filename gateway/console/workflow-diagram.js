// Draws the BPMN document of each [data-bpmn] element with the bpmn-js viewer (loaded before this
// script), marking the steps named by its data-passed and data-current attributes. The console's
// content policy allows scripts from the console only, so a page's data travels in attributes.
for (const container of document.querySelectorAll("[data-bpmn]")) void draw(container);

async function draw(container) {
  const viewer = new window.BpmnJS({ container });
  try {
    await viewer.importXML(container.dataset.bpmn);
  } catch (error) {
    container.textContent = `The diagram cannot be drawn: ${error.message}`;
    container.dataset.state = "failed";
    return;
  }
  const canvas = viewer.get("canvas");
  const registry = viewer.get("elementRegistry");
  canvas.zoom("fit-viewport");
  const marks = [
    ["passed", "op-passed"],
    ["current", "op-current"],
  ];
  for (const [attribute, marker] of marks) {
    for (const id of (container.dataset[attribute] ?? "").split(" ")) {
      if (id && registry.get(id)) canvas.addMarker(id, marker);
    }
  }
  container.dataset.state = "drawn";
}
