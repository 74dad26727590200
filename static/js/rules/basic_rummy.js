// The rules of Basic Rummy in five languages, as the rules page shows them
// (static/js/rules.js): pictures are card lists shared by every language; a
// section's "figures" are captions, by picture. The text after `export default`
// is plain JSON, so that tests can read it without JavaScript.
export default {
  "pictures": {
    "run": {
      "cards": [
        "4H",
        "5H",
        "6H",
        "7H"
      ],
      "ok": true
    },
    "set": {
      "cards": [
        "9S",
        "9H",
        "9C"
      ],
      "ok": true
    },
    "bad": {
      "cards": [
        "QC",
        "KC",
        "AC"
      ],
      "ok": false
    }
  },
  "en": {
    "title": "Basic Rummy",
    "intro": "Get rid of all your cards by laying them down in melds. The first player with an empty hand wins the deal and scores the cards the others still hold.",
    "sections": [
      {
        "id": "deal",
        "title": "The deal",
        "text": [
          "One deck of 52 cards, no jokers. With 2 players everyone gets 10 cards, with 3 or 4 players 7, with 5 or 6 players 6.",
          "One card is turned face up to start the discard pile. The rest is the stock, face down."
        ]
      },
      {
        "id": "melds",
        "title": "Melds",
        "text": [
          "A run is three or more cards of one suit in a row. The ace is low only: A-2-3 is a run, Q-K-A is not.",
          "A set is three or four cards of the same rank."
        ],
        "figures": {
          "run": "A run: 4, 5, 6 and 7 of hearts",
          "set": "A set: three nines",
          "bad": "Not a run: the ace does not follow the king"
        }
      },
      {
        "id": "turn",
        "title": "Your turn",
        "text": [
          "Draw one card: the top of the stock or the top of the discard pile.",
          "Then, if you like, lay down one new meld, and lay off single cards on any meld on the table, yours or another player's.",
          "End by discarding one card. A card you took from the discard pile cannot go back on it in the same turn."
        ]
      },
      {
        "id": "end",
        "title": "Going out",
        "text": [
          "The deal ends the moment a player has no cards left, whether the last card was melded, laid off or discarded.",
          "If the stock runs out, the discard pile is turned over and becomes the new stock."
        ]
      },
      {
        "id": "scoring",
        "title": "Scoring",
        "text": [
          "The winner scores the cards left in the other players' hands: ace 1, 2 to 10 their number, jack, queen and king 10.",
          "Rummy: going out in a single turn without having melded before doubles the score.",
          "The match goes to 100 points unless the table says otherwise. The highest total wins."
        ]
      }
    ]
  },
  "id": {
    "title": "Remi Dasar",
    "intro": "Habiskan semua kartu di tangan dengan menurunkannya dalam kombinasi. Pemain pertama yang kartunya habis memenangkan ronde dan mendapat nilai kartu yang masih dipegang pemain lain.",
    "sections": [
      {
        "id": "deal",
        "title": "Pembagian kartu",
        "text": [
          "Satu set 52 kartu, tanpa joker. Dengan 2 pemain masing-masing dapat 10 kartu, dengan 3 atau 4 pemain 7 kartu, dengan 5 atau 6 pemain 6 kartu.",
          "Satu kartu dibuka untuk memulai tumpukan buangan. Sisanya menjadi tumpukan tertutup."
        ]
      },
      {
        "id": "melds",
        "title": "Kombinasi",
        "text": [
          "Seri adalah tiga kartu atau lebih dengan gambar (bunga) yang sama dan angka berurutan. As hanya bernilai rendah: As-2-3 sah, Q-K-As tidak.",
          "Set adalah tiga atau empat kartu dengan angka yang sama."
        ],
        "figures": {
          "run": "Seri: 4, 5, 6 dan 7 hati",
          "set": "Set: tiga kartu 9",
          "bad": "Bukan seri: As tidak menyambung setelah King"
        }
      },
      {
        "id": "turn",
        "title": "Giliranmu",
        "text": [
          "Ambil satu kartu: dari tumpukan tertutup atau kartu teratas tumpukan buangan.",
          "Lalu, kalau mau, turunkan satu kombinasi baru, dan tempelkan kartu satu per satu ke kombinasi mana pun di meja, milikmu atau milik pemain lain.",
          "Akhiri giliran dengan membuang satu kartu. Kartu yang baru kamu ambil dari tumpukan buangan tidak boleh dibuang lagi di giliran yang sama."
        ]
      },
      {
        "id": "end",
        "title": "Kartu habis",
        "text": [
          "Ronde selesai begitu ada pemain yang kartunya habis, entah kartu terakhir diturunkan, ditempel, atau dibuang.",
          "Kalau tumpukan tertutup habis, tumpukan buangan dibalik dan menjadi tumpukan baru."
        ]
      },
      {
        "id": "scoring",
        "title": "Skor",
        "text": [
          "Pemenang mendapat nilai kartu yang tersisa di tangan pemain lain: As 1, 2 sampai 10 sesuai angkanya, Jack, Queen dan King 10.",
          "Rummy: menghabiskan kartu dalam satu giliran tanpa pernah menurunkan kartu sebelumnya membuat skor menjadi dua kali lipat.",
          "Permainan sampai 100 poin, kecuali meja menentukan lain. Total tertinggi menang."
        ]
      }
    ]
  },
  "fr": {
    "title": "Rami simple",
    "intro": "Débarrassez-vous de toutes vos cartes en les posant en combinaisons. Le premier joueur qui n'a plus de cartes gagne la donne et marque les cartes restées dans les mains des autres.",
    "sections": [
      {
        "id": "deal",
        "title": "La donne",
        "text": [
          "Un jeu de 52 cartes, sans joker. À 2 joueurs, chacun reçoit 10 cartes ; à 3 ou 4 joueurs, 7 ; à 5 ou 6 joueurs, 6.",
          "Une carte est retournée pour commencer la défausse. Le reste forme la pioche, face cachée."
        ]
      },
      {
        "id": "melds",
        "title": "Combinaisons",
        "text": [
          "Une suite, ce sont trois cartes ou plus de la même couleur qui se suivent. L'as est toujours bas : A-2-3 est une suite, D-R-A non.",
          "Un brelan ou un carré, ce sont trois ou quatre cartes de même valeur."
        ],
        "figures": {
          "run": "Une suite : 4, 5, 6 et 7 de cœur",
          "set": "Un brelan : trois 9",
          "bad": "Pas une suite : l'as ne suit pas le roi"
        }
      },
      {
        "id": "turn",
        "title": "Votre tour",
        "text": [
          "Prenez une carte : celle du dessus de la pioche ou celle du dessus de la défausse.",
          "Ensuite, si vous voulez, posez une nouvelle combinaison et ajoutez des cartes, une par une, à n'importe quelle combinaison sur la table, la vôtre ou celle d'un autre.",
          "Terminez en défaussant une carte. Une carte prise dans la défausse ne peut pas y retourner pendant le même tour."
        ]
      },
      {
        "id": "end",
        "title": "Sortir",
        "text": [
          "La donne s'arrête dès qu'un joueur n'a plus de cartes, que la dernière ait été posée, ajoutée ou défaussée.",
          "Quand la pioche est vide, la défausse est retournée et devient la nouvelle pioche."
        ]
      },
      {
        "id": "scoring",
        "title": "Les points",
        "text": [
          "Le gagnant marque les cartes restées dans les mains des autres : as 1, du 2 au 10 leur valeur, valet, dame et roi 10.",
          "Rami : sortir en un seul tour sans avoir rien posé avant double les points.",
          "La partie se joue en 100 points, sauf si la table en décide autrement. Le plus gros total gagne."
        ]
      }
    ]
  },
  "nb": {
    "title": "Enkel rummy",
    "intro": "Bli kvitt alle kortene dine ved å melde dem. Den første som har tom hånd vinner runden og får poengene for kortene de andre sitter igjen med.",
    "sections": [
      {
        "id": "deal",
        "title": "Utdelingen",
        "text": [
          "Én kortstokk med 52 kort, uten jokere. Med 2 spillere får alle 10 kort, med 3 eller 4 spillere 7, med 5 eller 6 spillere 6.",
          "Ett kort snus for å starte kastebunken. Resten av kortstokken blir trekkbunken, med bildesiden ned."
        ]
      },
      {
        "id": "melds",
        "title": "Rekker og sett",
        "text": [
          "En rekke er tre eller flere kort i samme sort som følger hverandre. Esset er bare lavt: E-2-3 er en rekke, D-K-E er det ikke.",
          "Et sett er tre eller fire kort med samme verdi, for eksempel tre niere."
        ],
        "figures": {
          "run": "En rekke: hjerter 4, 5, 6 og 7",
          "set": "Et sett: tre niere",
          "bad": "Ikke en rekke: esset kommer ikke etter kongen"
        }
      },
      {
        "id": "turn",
        "title": "Din tur",
        "text": [
          "Trekk ett kort: det øverste i trekkbunken eller det øverste i kastebunken.",
          "Så kan du, om du vil, melde én ny rekke eller ett nytt sett, og legge til enkeltkort på hva som helst som er meldt på bordet, ditt eller andres.",
          "Avslutt med å kaste ett kort. Et kort du tok fra kastebunken, kan ikke kastes igjen i samme tur."
        ]
      },
      {
        "id": "end",
        "title": "Gå ut",
        "text": [
          "Runden slutter i det øyeblikket en spiller ikke har flere kort, enten det siste ble meldt, lagt til eller kastet.",
          "Hvis trekkbunken er tom, snus kastebunken og blir ny trekkbunke."
        ]
      },
      {
        "id": "scoring",
        "title": "Poeng",
        "text": [
          "Vinneren får verdien av kortene de andre har igjen på hånden: ess 1, 2 til 10 tallverdien, knekt, dame og konge 10.",
          "Rummy: går du ut på én tur uten å ha meldt noe før, blir poengene doblet.",
          "Det spilles til 100 poeng, om ikke bordet sier noe annet. Høyest sum vinner."
        ]
      }
    ]
  },
  "sr": {
    "title": "Osnovni remi",
    "intro": "Oslobodi se svih karata tako što ih spuštaš u kombinacije. Prvi igrač koji ostane bez karata dobija deljenje i upisuje vrednost karata koje su ostale drugima u ruci.",
    "sections": [
      {
        "id": "deal",
        "title": "Deljenje",
        "text": [
          "Jedan špil od 52 karte, bez džokera. Sa 2 igrača svako dobija 10 karata, sa 3 ili 4 igrača 7, sa 5 ili 6 igrača 6.",
          "Jedna karta se okrene licem nagore i započinje gomilu bačenih karata. Ostatak je talon, licem nadole."
        ]
      },
      {
        "id": "melds",
        "title": "Kombinacije",
        "text": [
          "Niz su tri ili više karata iste boje koje idu redom. Kec je samo nizak: kec-2-3 je niz, dama-kralj-kec nije.",
          "Grupa su tri ili četiri karte iste vrednosti."
        ],
        "figures": {
          "run": "Niz: herc 4, 5, 6 i 7",
          "set": "Grupa: tri devetke",
          "bad": "Nije niz: kec ne ide posle kralja"
        }
      },
      {
        "id": "turn",
        "title": "Tvoj potez",
        "text": [
          "Uzmi jednu kartu: sa vrha talona ili gornju kartu sa gomile bačenih.",
          "Zatim, ako hoćeš, spusti jednu novu kombinaciju i dodaj pojedinačne karte na bilo koju kombinaciju na stolu, svoju ili tuđu.",
          "Potez završavaš tako što baciš jednu kartu. Kartu koju si uzeo sa gomile ne možeš baciti u istom potezu."
        ]
      },
      {
        "id": "end",
        "title": "Izlazak",
        "text": [
          "Deljenje se završava čim neki igrač ostane bez karata, bilo da je poslednju kartu spustio, dodao ili bacio.",
          "Kad se talon potroši, gomila bačenih karata se okrene i postaje novi talon."
        ]
      },
      {
        "id": "scoring",
        "title": "Bodovi",
        "text": [
          "Pobednik upisuje karte koje su ostale drugima u ruci: kec 1, od 2 do 10 po broju, žandar, dama i kralj 10.",
          "Remi iz ruke: ako izađeš u jednom potezu, a pre toga nisi ništa spustio, bodovi se dupliraju.",
          "Igra se do 100 bodova, osim ako sto ne odredi drugačije. Pobeđuje najveći zbir."
        ]
      }
    ]
  }
};
