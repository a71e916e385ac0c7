// Talking to the workbench's JSON API, and telling the person when it fails.

export async function api(method, path, body) {
  const options = { method, headers: {} };
  if (body instanceof FormData) {
    options.body = body;
  } else if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  if (!response.ok) {
    let detail = `${response.status} ${response.statusText}`;
    try {
      detail = (await response.json()).detail ?? detail;
    } catch {
      // Not JSON: keep the status line.
    }
    throw Object.assign(new Error(detail), { status: response.status });
  }
  return response.status === 204 ? null : response.json();
}

// Shows `error` in `where` (an element beside what caused it), and brings it into view.
export function showErrorAt(where, error) {
  where.textContent = error.message ?? String(error);
  where.hidden = false;
  where.scrollIntoView({ block: "nearest" });
}

// Shows `error` in the page's error bar, for what belongs to no one place on the page;
// `retry`, if given, is offered as a button.
export function showError(error, retry) {
  const bar = document.getElementById("error-bar");
  bar.querySelector(".message").textContent = error.message ?? String(error);
  const again = bar.querySelector(".retry");
  again.hidden = !retry;
  again.onclick = () => {
    bar.hidden = true;
    retry();
  };
  bar.querySelector(".dismiss").onclick = () => (bar.hidden = true);
  bar.hidden = false;
}

// Runs `action`; on failure shows the error with a Retry that runs it again.
export async function attempt(action) {
  try {
    return await action();
  } catch (error) {
    showError(error, () => attempt(action));
    return undefined;
  }
}

export function element(tag, properties = {}, ...children) {
  const made = Object.assign(document.createElement(tag), properties);
  made.append(...children.filter((child) => child !== null && child !== undefined));
  return made;
}
