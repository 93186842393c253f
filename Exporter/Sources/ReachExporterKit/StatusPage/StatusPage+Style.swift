/// The page's inline style sheet: light and dark, a table on a wide screen,
/// a card per row on a phone.
extension StatusPage {
    static let style = """
        :root{--bg:#fff;--fg:#1b1f24;--muted:#5b6470;--line:#d8dde3;--card:#f6f8fa;\
        --ok:#1a7f37;--ok-bg:#dafbe1;--warn:#9a6700;--warn-bg:#fff8c5;--bad:#cf222e;--bad-bg:#ffebe9;\
        --unknown:#57606a;--unknown-bg:#eaeef2;color-scheme:light dark}
        @media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#8d96a0;--line:#30363d;\
        --card:#161b22;--ok:#3fb950;--ok-bg:#12261e;--warn:#d29922;--warn-bg:#272115;--bad:#f85149;\
        --bad-bg:#2d1517;--unknown:#8d96a0;--unknown-bg:#21262d}}
        *{box-sizing:border-box}
        body{margin:0 auto;max-width:72rem;padding:.75rem;background:var(--bg);color:var(--fg);\
        font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif}
        h1{font-size:1.3rem;margin:.2rem 0}h1 .host{color:var(--muted);font-weight:400}
        h2{font-size:1.05rem;margin:1.3rem 0 .5rem;padding-bottom:.2rem;border-bottom:1px solid var(--line)}
        p{margin:.35rem 0}.meta,.none,small,footer{color:var(--muted)}small{font-size:.85em}
        .summary{display:flex;flex-wrap:wrap;gap:.3rem .8rem;align-items:center}
        code{font:13px/1.3 ui-monospace,"DejaVu Sans Mono",monospace}
        .badge{display:inline-block;padding:0 .45rem;border-radius:1rem;font-size:.85em;font-weight:600;white-space:nowrap}
        .ok{color:var(--ok);background:var(--ok-bg)}.warn{color:var(--warn);background:var(--warn-bg)}
        .bad{color:var(--bad);background:var(--bad-bg)}.unknown{color:var(--unknown);background:var(--unknown-bg)}
        .error{color:var(--bad)}
        table{border-collapse:collapse;width:100%}
        th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
        th{font-size:.8rem;color:var(--muted);font-weight:600}
        ol.changes{list-style:none;margin:0;padding:0}
        ol.changes li{padding:.3rem 0;border-bottom:1px solid var(--line);overflow-wrap:anywhere}
        ol.changes .when{font:13px ui-monospace,"DejaVu Sans Mono",monospace;color:var(--muted)}
        ol.changes b{margin-right:.2rem}code{white-space:pre}
        dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem .9rem;margin:0}
        dt{color:var(--muted)}dd{margin:0;overflow-wrap:anywhere}
        footer{margin:1.5rem 0 .5rem;font-size:.85rem}a{color:inherit}
        @media (max-width:40rem){
        table.rows thead{display:none}
        table.rows,table.rows tbody,table.rows tr{display:block}
        table.rows tr{background:var(--card);border:1px solid var(--line);border-radius:.5rem;margin:0 0 .6rem;padding:.35rem .7rem}
        table.rows td{display:flex;justify-content:space-between;gap:1rem;border:0;padding:.15rem 0;text-align:right;overflow-wrap:anywhere}
        table.rows td::before{content:attr(data-label);color:var(--muted);text-align:left;white-space:nowrap}
        table.rows td.title{display:block;text-align:left;font-weight:600;font-size:1.05rem;padding:.1rem 0 .25rem}
        table.rows td.title::before{content:none}table.rows td.title small{font-weight:400}
        table.rows td.wide{display:block;text-align:left}table.rows td.wide::before{display:block}
        }
        """
}
