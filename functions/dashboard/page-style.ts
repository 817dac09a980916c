// The cluster view's stylesheet, inline in the page (no external asset).
export const pageStyle = `
body{font:14px/1.4 system-ui,sans-serif;margin:0 24px 24px;color:#212121;background:#fff}
header{display:flex;align-items:baseline;justify-content:space-between;border-bottom:1px solid #e0e0e0}
h1{font-size:20px;margin:14px 0}
a{color:#1565c0}
.summary{margin:10px 0}
.summary .failing{color:#c62828}.summary .busy{color:#1565c0}.summary .ok{color:#2e7d32}
.charts{display:flex;gap:32px;flex-wrap:wrap;margin:8px 0 16px}
.chart{margin:0}.chart figcaption{font-weight:600;margin-bottom:4px}.chart small{color:#757575;font-weight:400}
.axis{display:flex;justify-content:space-between;width:360px;color:#757575;font-size:11px}
.legend{font-size:12px;color:#424242}.key{margin-right:10px}.key i{display:inline-block;width:9px;height:9px;margin-right:4px}
table{border-collapse:collapse;width:100%}
th{text-align:left;font-size:12px;color:#616161;border-bottom:2px solid #e0e0e0;padding:6px 8px}
td{vertical-align:top;border-bottom:1px solid #eee;padding:8px}
tr.failing td:first-child{border-left:4px solid #c62828}tr.busy td:first-child{border-left:4px solid #1565c0}
tr.ok td:first-child{border-left:4px solid #2e7d32}
.key b{font-family:ui-monospace,monospace;white-space:nowrap}
.phase{padding:2px 8px;border-radius:10px;background:#eeeeee;font-weight:600;white-space:nowrap}
.phase-Running{background:#c8e6c9;color:#1b5e20}.phase-Degraded,.phase-Failed{background:#ffcdd2;color:#b71c1c}
.phase-Scaling,.phase-Updating,.phase-Creating{background:#bbdefb;color:#0d47a1}.phase-Paused{background:#fff9c4}
.cond{margin-bottom:3px;white-space:nowrap}.cond .reason{color:#616161}
.cond.bad b{color:#c62828}.cond.good b{color:#2e7d32}.cond.busy b{color:#1565c0}
.msg{white-space:normal;color:#424242;font-size:13px;max-width:380px}
.cond.bad .msg,.run.error .msg,.run.error a{color:#b71c1c}
.muted{color:#9e9e9e;font-size:12px}
.bar{width:120px;height:6px;background:#e0e0e0;border-radius:3px;margin-top:3px}.bar i{display:block;height:100%;background:#1565c0;border-radius:3px}
.bar.full i{background:#2e7d32}.bar.short i{background:#c62828}
.run a{font-weight:600;text-decoration:none}.run.ok a{color:#2e7d32}.run.requeue a{color:#1565c0}
.strip{margin-top:4px}.dot{display:inline-block;width:10px;height:10px;margin-right:3px;border-radius:2px}
.dot.ok{background:#2e7d32}.dot.requeue{background:#1565c0}.dot.error{background:#c62828}
.next{white-space:normal;max-width:200px}.empty{color:#757575;text-align:center;padding:24px}
`;
